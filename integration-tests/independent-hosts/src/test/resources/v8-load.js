// Loads one proxy-wasm module in Node's V8 (Envoy's default engine) the way Envoy starts a VM, with every import
// stubbed, and prints one result per line as "key<TAB>value" for V8LoadTest to parse.
// Usage: node v8-load.js <file.wasm> [proxy-wasm-abi.json]
'use strict';
const fs = require('fs');
const crypto = require('crypto');
// Lets Module.imports/exports report function signatures (Node 20: behind this V8 flag; set before any compile).
try { require('v8').setFlagsFromString('--experimental-wasm-type-reflection'); } catch (e) { /* types stay unknown */ }

const out = (key, value) => process.stdout.write(key + '\t' + String(value).replace(/[\t\r\n]/g, ' ') + '\n');
const fail = (phase, e) => { out('error', phase + ': ' + (e && e.message ? e.message : e)); out('end', 'failed'); process.exit(0); };

async function main() {
  const bytes = fs.readFileSync(process.argv[2]);
  out('bytes', bytes.length);
  const valid = WebAssembly.validate(bytes);
  out('validate', valid);
  if (!valid) fail('validate', 'WebAssembly.validate returned false');

  let module;
  try { module = await WebAssembly.compile(bytes); } catch (e) { fail('compile', e); }
  out('compile', 'ok');
  for (const i of WebAssembly.Module.imports(module)) out('import', i.module + '.' + i.name + ' ' + i.kind);
  for (const e of WebAssembly.Module.exports(module)) out('export', e.name + ' ' + e.kind);
  if (process.argv[3]) checkAgainstSpec(module, JSON.parse(fs.readFileSync(process.argv[3], 'utf8')));

  // Stubs need the guest's memory, known only after instantiation; re-read buffer each time (memory.grow detaches it).
  let memory = null;
  const view = () => new DataView(memory.buffer);
  const text = (ptr, len) => Buffer.from(memory.buffer, ptr, len).toString('utf8');
  let phase = 'instantiate';
  const calls = new Map();
  const wasi = {
    // Envoy sends stdout/stderr to its log; count the bytes so the guest sees a complete write.
    fd_write(fd, iovs, iovsLen, nwrittenPtr) {
      let n = 0;
      for (let k = 0; k < iovsLen; k++) {
        const ptr = view().getUint32(iovs + 8 * k, true);
        const len = view().getUint32(iovs + 8 * k + 4, true);
        out('fd' + fd, text(ptr, len));
        n += len;
      }
      view().setUint32(nwrittenPtr, n, true);
      return 0;
    },
    clock_time_get(id, precision, timePtr) {
      view().setBigUint64(timePtr, BigInt(Date.now()) * 1000000n, true);
      return 0;
    },
    random_get(ptr, len) { crypto.randomFillSync(new Uint8Array(memory.buffer, ptr, len)); return 0; },
    args_sizes_get(argcPtr, sizePtr) { view().setUint32(argcPtr, 0, true); view().setUint32(sizePtr, 0, true); return 0; },
    environ_sizes_get(countPtr, sizePtr) { view().setUint32(countPtr, 0, true); view().setUint32(sizePtr, 0, true); return 0; },
    proc_exit(code) { throw new Error('proc_exit(' + code + ') is an error in Envoy'); },
  };
  const env = {
    proxy_log(level, ptr, len) { out('log', level + ' ' + text(ptr, len)); return 0; },
  };
  const imports = {};
  for (const i of WebAssembly.Module.imports(module)) {
    if (i.kind !== 'function') continue; // a memory/table/global import is reported by the import lines above
    const impl = (i.module === 'env' ? env : i.module === 'wasi_snapshot_preview1' ? wasi : {})[i.name];
    const key = i.module + '.' + i.name;
    (imports[i.module] = imports[i.module] || {})[i.name] = (...args) => {
      calls.set(phase + ' ' + key, (calls.get(phase + ' ' + key) || 0) + 1);
      return impl ? impl(...args) : 0;
    };
  }

  let instance;
  try { instance = await WebAssembly.instantiate(module, imports); } catch (e) { fail('instantiate', e); }
  out('instantiate', 'ok');
  const x = instance.exports;
  memory = x.memory;
  if (!(memory instanceof WebAssembly.Memory)) fail('memory', 'no exported memory');

  // Envoy's startVm(): _initialize (+ main) if exported, else _start.
  phase = 'start';
  try {
    if (typeof x._initialize === 'function') { x._initialize(); out('start', '_initialize'); }
    else if (typeof x._start === 'function') { x._start(); out('start', '_start'); }
    else out('start', 'none');
  } catch (e) { fail('start', e); }

  phase = 'allocate';
  if (typeof x.proxy_on_memory_allocate !== 'function') fail('allocate', 'no proxy_on_memory_allocate export');
  try {
    const ptr = x.proxy_on_memory_allocate(64) >>> 0;
    out('allocate', ptr);
    out('memory-bytes', memory.buffer.byteLength);
  } catch (e) { fail('allocate', e); }

  phase = 'context-create';
  if (typeof x.proxy_on_context_create !== 'function') fail('context-create', 'no proxy_on_context_create export');
  try { x.proxy_on_context_create(1, 0); } catch (e) { fail('context-create', e); }
  out('context-create', 'ok');

  for (const [key, n] of calls) out('call', key + ' ' + n);
  out('end', 'ok');
}

// Like Envoy's linker: every import must be one the host provides, with the same signature; known exports too.
function checkAgainstSpec(module, spec) {
  const signature = f => f.params.map(p => p.type).join(',') + '->' + f.results.join(',');
  const typed = t => t ? t.parameters.join(',') + '->' + t.results.join(',') : null;
  const provided = new Map();
  for (const f of spec.imports.concat(spec.wasiImports)) provided.set(f.module + '.' + f.name, signature(f));
  const expected = new Map(spec.exports.map(f => [f.name, signature(f)]));
  expected.set(spec.abiVersionExport, '->');
  const imports = WebAssembly.Module.imports(module);
  out('types', imports.length === 0 || imports[0].type !== undefined ? 'known' : 'unknown');
  for (const i of imports) {
    const key = i.module + '.' + i.name;
    const want = provided.get(key), got = typed(i.type);
    out('import-check', key + ' ' + (want === undefined ? 'unknown-to-host'
        : got === null || got === want ? 'ok' : 'mismatch ' + got + ' host ' + want));
  }
  for (const e of WebAssembly.Module.exports(module)) {
    const want = expected.get(e.name);
    if (e.kind !== 'function' || want === undefined) continue;
    const got = typed(e.type);
    out('export-check', e.name + ' ' + (got === null || got === want ? 'ok' : 'mismatch ' + got + ' host ' + want));
  }
}

main().catch(e => fail('unexpected', e));
