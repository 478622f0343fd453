// A proxy-wasm host for Node's V8 (Envoy's default Wasm engine) that drives whole HTTP requests through a plugin
// module with a real Redis and measures the guest's time per request. Started by V8CostBench (and its test), one
// process per policy, and by V8HashBench (the SDK probe, no Redis); it reads a JSON configuration and prints one tab-separated record per line:
//   engine  <node version> <v8 version> <cpu model> <cpus>     module  <bytes> <compile ms>
//   redis-version <version>                                     begin   <shape> <bytes>
//   trap    <shape> <bytes> <requests on the VM> <export> <message>
//   trace   <request> <override|-> <routed 0|1> <local reply status|-> <commands> <replies, base64, comma-separated>
//   reply   <shape> <bytes> <status> <body>   right before its cell when the cell's requests got local replies: the last
//   cell    <shape> <bytes> <warm-up requests> <samples> <median ns> <p90 ns> <wall median ns> <cpu median ns>
//           <routed> <local replies> <stalled> <traps> <redis calls> <requests> <errors logged> <first error|->
//           <status>
//   end     ok
// Usage: node v8-host.js <config.json>
// A body may carry extra request headers (e.g. the SDK probe's x-probe-op); without a Redis in the configuration
// (redis: null) the host offers none and proxy_redis_init fails.
//
// The host follows Envoy with proxy-wasm-cpp-host (Higress fork): start sequence, header and body status
// conversion, deferred continue/local reply, Higress's upstream-host and Redis extensions. Nothing outside Node.
'use strict';
const fs = require('fs');
const net = require('net');
const os = require('os');
const crypto = require('crypto');

const Result = { OK: 0, NOT_FOUND: 1, BAD_ARGUMENT: 2, SERIALIZATION_FAILURE: 3, INVALID_MEMORY_ACCESS: 6,
  CAS_MISMATCH: 8, INTERNAL_FAILURE: 10 };
const BufferType = { REQUEST_BODY: 0, RESPONSE_BODY: 1, HTTP_CALL_RESPONSE_BODY: 4, VM_CONFIGURATION: 6,
  PLUGIN_CONFIGURATION: 7, REDIS_CALL_RESPONSE: 9 };
const MapType = { REQUEST_HEADERS: 0, REQUEST_TRAILERS: 1, RESPONSE_HEADERS: 2, RESPONSE_TRAILERS: 3,
  HTTP_CALL_RESPONSE_HEADERS: 6, HTTP_CALL_RESPONSE_TRAILERS: 7 };
const LogLevel = { TRACE: 0, DEBUG: 1, INFO: 2, WARN: 3, ERROR: 4, CRITICAL: 5 };
const Wasi = { SUCCESS: 0, EBADF: 8, EFAULT: 21, EINVAL: 28, ENOSYS: 52 };
const REDIS_NETWORK_ERROR = 1;
const LOG_TAIL = 20;
const CONSECUTIVE_TRAPS_LIMIT = 3;

const utf8 = new TextDecoder('utf-8');
const out = (...fields) => process.stdout.write(fields.map(f => String(f).replace(/[\t\r\n]/g, ' ')).join('\t') + '\n');

/** A guest pointer or size outside its memory: the host function answers INVALID_MEMORY_ACCESS. */
class InvalidMemory extends Error {}

/** An exception out of a guest export: the VM is dead, as in Envoy. */
class GuestTrap extends Error {
  constructor(exportName, cause) {
    super(exportName + ': ' + (cause && cause.message ? cause.message : String(cause)));
    this.exportName = exportName;
    this.guestStack = cause && cause.stack ? cause.stack.split('\n').filter(l => l.includes('wasm')).slice(0, 6)
      .map(l => l.trim().replace(/^at /, '').replace(/ \(wasm:.*$/, '')).join(' < ') : '';
  }
}

// ---- wire formats ------------------------------------------------------------------------------------------------

/** The proxy-wasm map serialization: u32 count, (u32 key size, u32 value size) per pair, then "key\0value\0"... */
function encodeMap(pairs) {
  const encoded = pairs.map(([k, v]) => [Buffer.from(k, 'utf8'), Buffer.from(v, 'utf8')]);
  let size = 4 + 8 * encoded.length;
  for (const [k, v] of encoded) size += k.length + v.length + 2;
  const bytes = Buffer.alloc(size);
  bytes.writeUInt32LE(encoded.length, 0);
  let sizes = 4;
  let data = 4 + 8 * encoded.length;
  for (const [k, v] of encoded) {
    bytes.writeUInt32LE(k.length, sizes);
    bytes.writeUInt32LE(v.length, sizes + 4);
    sizes += 8;
    k.copy(bytes, data);
    data += k.length + 1;
    v.copy(bytes, data);
    data += v.length + 1;
  }
  return bytes;
}

/** Inverse of encodeMap; null when the bytes are not a well-formed map. */
function decodeMap(bytes) {
  if (bytes.length === 0) return [];
  if (bytes.length < 4) return null;
  const count = bytes.readUInt32LE(0);
  let data = 4 + 8 * count;
  if (data > bytes.length) return null;
  const pairs = [];
  for (let i = 0; i < count; i++) {
    const keySize = bytes.readUInt32LE(4 + 8 * i);
    const valueSize = bytes.readUInt32LE(8 + 8 * i);
    if (data + keySize + valueSize + 2 > bytes.length) return null;
    const key = bytes.toString('utf8', data, data + keySize);
    data += keySize + 1;
    const value = bytes.toString('utf8', data, data + valueSize);
    data += valueSize + 1;
    pairs.push([key, value]);
  }
  return data === bytes.length ? pairs : null;
}

/** A RESP command of bulk strings. */
function respCommand(args) {
  const parts = ['*' + args.length + '\r\n'];
  for (const arg of args) {
    const bytes = Buffer.from(String(arg), 'utf8');
    parts.push('$' + bytes.length + '\r\n', bytes, '\r\n');
  }
  return Buffer.concat(parts.map(p => typeof p === 'string' ? Buffer.from(p, 'latin1') : p));
}

/**
 * The end offset of the first complete RESP2/RESP3 reply in bytes, or -1 while it is incomplete. Only framing is
 * read: the reply itself goes to the guest as it came. Aggregates are counted, not descended into.
 */
function respEnd(bytes) {
  let pos = 0;
  let remaining = 1;
  while (remaining > 0) {
    if (pos >= bytes.length) return -1;
    const type = String.fromCharCode(bytes[pos]);
    const lineEnd = bytes.indexOf('\r\n', pos + 1, 'latin1');
    if (lineEnd < 0) return -1;
    remaining--;
    const header = () => Number.parseInt(bytes.toString('latin1', pos + 1, lineEnd), 10);
    switch (type) {
      case '+': case '-': case ':': case '_': case ',': case '#': case '(':
        pos = lineEnd + 2;
        break;
      case '$': case '!': case '=': {
        const length = header();
        pos = length < 0 ? lineEnd + 2 : lineEnd + 2 + length + 2;
        if (pos > bytes.length) return -1;
        break;
      }
      case '*': case '~': case '>': {
        const count = header();
        pos = lineEnd + 2;
        if (count > 0) remaining += count;
        break;
      }
      case '%': {
        const count = header();
        pos = lineEnd + 2;
        if (count > 0) remaining += 2 * count;
        break;
      }
      case '|': {
        // An attribute map precedes the reply it annotates, which still has to come.
        const count = header();
        pos = lineEnd + 2;
        remaining += 2 * Math.max(count, 0) + 1;
        break;
      }
      default:
        throw new Error('not a RESP reply: type byte ' + bytes[pos]);
    }
  }
  return pos;
}

/** The command word of a RESP query ("EVALSHA", ...), for traces. */
function commandWord(query) {
  const text = query.toString('latin1', 0, Math.min(query.length, 64));
  const match = /^\*\d+\r\n\$\d+\r\n([^\r]*)\r\n/.exec(text);
  return match ? match[1].toUpperCase() : '?';
}

// ---- Redis -------------------------------------------------------------------------------------------------------

/**
 * One VM's connection to one Redis cluster (Envoy keeps one per worker and cluster). Connects lazily, sends AUTH and
 * SELECT as proxy_redis_init asked, and on any failure fails every pending call with status 1 and reconnects at the
 * next call.
 */
class RedisLink {
  constructor(endpoint, username, password, database, timeoutMillis, onReply) {
    this.endpoint = endpoint;
    this.username = username;
    this.password = password;
    this.database = database;
    this.timeoutMillis = timeoutMillis > 0 ? timeoutMillis : 1000;
    this.onReply = onReply;
    this.socket = null;
    this.pending = [];
    this.received = Buffer.alloc(0);
  }

  send(query, token) {
    if (this.socket === null) this.connect();
    this.pending.push({ token });
    this.socket.write(query);
  }

  connect() {
    const socket = net.createConnection({ host: this.endpoint.host, port: this.endpoint.port });
    socket.setNoDelay(true);
    socket.on('data', chunk => { if (socket === this.socket) this.receive(chunk); });
    socket.on('error', e => { if (socket === this.socket) this.fail(e); });
    socket.on('close', () => { if (socket === this.socket) this.fail(new Error('connection closed')); });
    this.socket = socket;
    this.received = Buffer.alloc(0);
    if (this.password) {
      const auth = this.username ? ['AUTH', this.username, this.password] : ['AUTH', this.password];
      this.pending.push({ check: 'AUTH' });
      socket.write(respCommand(auth));
    }
    if (this.database) {
      this.pending.push({ check: 'SELECT ' + this.database });
      socket.write(respCommand(['SELECT', this.database]));
    }
  }

  receive(chunk) {
    this.received = this.received.length === 0 ? chunk : Buffer.concat([this.received, chunk]);
    let end;
    while (this.socket !== null && (end = respEnd(this.received)) > 0) {
      const reply = Buffer.from(this.received.subarray(0, end));
      this.received = this.received.subarray(end);
      const call = this.pending.shift();
      if (call === undefined) continue;
      if (call.check !== undefined) {
        if (reply[0] === 0x2d) this.fail(new Error(call.check + ' failed: ' + reply.toString('utf8').trim()));
        continue;
      }
      this.onReply(call.token, 0, reply);
    }
  }

  /** Drops the connection; every call still waiting gets status 1 (network error), as Envoy reports it. */
  fail(cause) {
    this.lastFailure = cause && cause.message ? cause.message : String(cause);
    const socket = this.socket;
    this.socket = null;
    if (socket !== null) socket.destroy();
    const waiting = this.pending;
    this.pending = [];
    for (const call of waiting) {
      if (call.token !== undefined) this.onReply(call.token, REDIS_NETWORK_ERROR, Buffer.alloc(0));
    }
  }

  close() {
    const socket = this.socket;
    this.socket = null;
    this.pending = [];
    if (socket !== null) socket.destroy();
  }
}

/** One command on a fresh connection, outside any VM: FLUSHALL and INFO for the bench itself. */
function adminCommand(endpoint, args) {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection({ host: endpoint.host, port: endpoint.port });
    let received = Buffer.alloc(0);
    const commands = [];
    if (endpoint.password) {
      commands.push(endpoint.username ? ['AUTH', endpoint.username, endpoint.password] : ['AUTH', endpoint.password]);
    }
    commands.push(args);
    let left = commands.length;
    socket.on('connect', () => { for (const c of commands) socket.write(respCommand(c)); });
    socket.on('data', chunk => {
      received = Buffer.concat([received, chunk]);
      let end;
      while ((end = respEnd(received)) > 0) {
        const reply = received.subarray(0, end);
        received = received.subarray(end);
        if (--left === 0) {
          socket.destroy();
          resolve(reply.toString('utf8'));
        } else if (reply[0] === 0x2d) {
          socket.destroy();
          reject(new Error('AUTH failed: ' + reply.toString('utf8').trim()));
        }
      }
    });
    socket.on('error', reject);
  });
}

// ---- the VM ------------------------------------------------------------------------------------------------------

/** One stream's state as the filter manager keeps it. */
class Stream {
  constructor(id, properties, headers) {
    this.id = id;
    this.properties = properties;
    this.headers = headers;
    this.body = null;
    this.headersForwarded = false;
    this.stopAll = false;
    this.continuePending = false;
    this.override = null;
    this.overrideAfterRouting = false;
    this.localReply = null;
    this.inLog = false;
  }
}

/** One Wasm VM (one Envoy worker) of the plugin: instance, root context, streams, Redis links and pending replies. */
class Vm {
  // shared: the gateway's shared data, one for all the VMs of a run ({ data: Map, nextCas }), as Envoy's workers share it.
  constructor(module, config, shared) {
    this.config = config;
    this.alive = true;
    this.starting = false;
    this.effective = 0;
    this.depth = 0;
    this.guestNs = 0n;
    this.nextContextId = 1;
    this.rootId = 0;
    this.streams = new Map();
    this.rootProperties = new Map();
    this.links = new Map();
    this.ready = [];
    this.outstanding = 0;
    this.wake = null;
    this.lastToken = 3;
    this.lastHttpCallId = 0;
    this.tickPeriod = 0;
    this.nextTickAt = Infinity;
    this.metrics = new Map();
    this.metricIds = [0, 1, 2];
    this.shared = shared;
    this.logs = [];
    this.errorsLogged = 0;
    this.firstError = null;
    this.buffers = { vm: null, plugin: null, redis: null, http: null };
    this.requestsServed = 0;
    this.redisCalls = 0;
    this.commands = [];
    this.replies = [];
    this.hosts = encodeMap(config.hosts.map(h => [h.address, h.info]));
    this.instance = new WebAssembly.Instance(module, this.imports(module));
    this.x = this.instance.exports;
    this.memory = this.x.memory;
    this.u8 = new Uint8Array(this.memory.buffer);
    this.view = new DataView(this.memory.buffer);
    this.boot();
  }

  // Envoy's start: _initialize (+ main) if exported, else _start, with only proxy_log and WASI allowed; then the
  // root context, proxy_on_vm_start and proxy_on_configure with the plugin configuration.
  boot() {
    this.starting = true;
    try {
      if (typeof this.x._initialize === 'function') {
        this.call('_initialize', 0);
        if (typeof this.x.main === 'function') this.call('main', 0, 0, 0);
      } else if (typeof this.x._start === 'function') {
        this.call('_start', 0);
      }
    } finally {
      this.starting = false;
    }
    this.rootId = this.nextContextId++;
    this.call('proxy_on_context_create', this.rootId, this.rootId, 0);
    this.buffers.vm = Buffer.alloc(0);
    const started = this.call('proxy_on_vm_start', this.rootId, this.rootId, 0);
    this.buffers.vm = null;
    if (!started) throw new Error('proxy_on_vm_start returned false');
    this.buffers.plugin = Buffer.from(this.config.policy.config, 'utf8');
    const configured = this.call('proxy_on_configure', this.rootId, this.rootId, this.buffers.plugin.length);
    this.buffers.plugin = null;
    if (!configured) throw new Error('proxy_on_configure returned false: ' + this.logTail());
  }

  /** Calls an export with contextId effective; only outermost calls add to guestNs (nested ones run inside). */
  call(name, contextId, ...args) {
    const saved = this.effective;
    this.effective = contextId;
    const outermost = this.depth === 0;
    this.depth++;
    const start = outermost ? process.hrtime.bigint() : 0n;
    try {
      return this.x[name](...args);
    } catch (e) {
      this.alive = false;
      throw e instanceof GuestTrap ? e : new GuestTrap(name, e);
    } finally {
      if (outermost) this.guestNs += process.hrtime.bigint() - start;
      this.depth--;
      this.effective = saved;
      if (outermost) this.applyDeferred();
    }
  }

  /** proxy_continue_stream takes effect after the guest call that asked for it returned. */
  applyDeferred() {
    for (const stream of this.streams.values()) {
      if (stream.continuePending) {
        stream.continuePending = false;
        stream.headersForwarded = true;
      }
    }
  }

  close() {
    this.alive = false;
    for (const link of this.links.values()) link.close();
    this.links.clear();
    this.ready = [];
    this.outstanding = 0;
    if (this.wake) this.wake();
  }

  // ---- memory ----------------------------------------------------------------------------------------------------

  bytes() {
    if (this.u8.buffer !== this.memory.buffer) {
      this.u8 = new Uint8Array(this.memory.buffer);
      this.view = new DataView(this.memory.buffer);
    }
    return this.u8;
  }

  check(pointer, size) {
    if (pointer < 0 || size < 0 || pointer + size > this.bytes().length) {
      throw new InvalidMemory('pointer ' + pointer + ' size ' + size);
    }
  }

  read(pointer, size) {
    pointer >>>= 0;
    size >>>= 0;
    this.check(pointer, size);
    return Buffer.from(this.u8.subarray(pointer, pointer + size));
  }

  text(pointer, size) {
    pointer >>>= 0;
    size >>>= 0;
    this.check(pointer, size);
    return utf8.decode(this.u8.subarray(pointer, pointer + size));
  }

  writeU32(pointer, value) {
    pointer >>>= 0;
    this.check(pointer, 4);
    this.view.setUint32(pointer, value >>> 0, true);
  }

  writeU64(pointer, value) {
    pointer >>>= 0;
    this.check(pointer, 8);
    this.view.setBigUint64(pointer, value, true);
  }

  /** Copies data into memory the guest allocates; empty data is pointer 0, size 0 (as cpp-host). */
  writeOut(data, pointerOut, sizeOut, from = 0, to = data.length) {
    let pointer = 0;
    const size = to - from;
    if (size > 0) {
      pointer = this.x.proxy_on_memory_allocate(size) >>> 0;
      if (pointer === 0) return Result.INVALID_MEMORY_ACCESS;
      this.check(pointer, size);
      this.u8.set(data.subarray(from, to), pointer);
    }
    this.writeU32(pointerOut, pointer);
    this.writeU32(sizeOut, size);
    return Result.OK;
  }

  // ---- logs ------------------------------------------------------------------------------------------------------

  log(level, message) {
    this.logs.push(level + ' ' + message);
    if (this.logs.length > LOG_TAIL) this.logs.shift();
    if (level >= LogLevel.ERROR) {
      this.errorsLogged++;
      if (this.firstError === null) this.firstError = message;
    }
  }

  logTail() {
    return this.logs.length === 0 ? '(no guest log lines)' : 'last guest log lines: ' + this.logs.join(' | ');
  }

  // ---- imports ---------------------------------------------------------------------------------------------------

  imports(module) {
    const env = this.envFunctions();
    const wasi = this.wasiFunctions();
    const imports = {};
    for (const i of WebAssembly.Module.imports(module)) {
      if (i.kind !== 'function') continue;
      const table = i.module === 'env' ? env : i.module === 'wasi_snapshot_preview1' ? wasi : {};
      let impl = table[i.name];
      if (impl === undefined) {
        impl = () => { throw new Error(i.module + '.' + i.name + ' is not implemented by the V8 bench host'); };
      } else {
        impl = i.module === 'env' ? this.guard(i.name, impl, Result.INVALID_MEMORY_ACCESS)
          : this.guard(null, impl, Wasi.EFAULT);
      }
      (imports[i.module] = imports[i.module] || {})[i.name] = impl;
    }
    return imports;
  }

  /**
   * Bad pointers answer INVALID_MEMORY_ACCESS (WASI: EFAULT); during _start only proxy_log and WASI may be called
   * (Envoy), so an env function there kills the VM. name is null for WASI.
   */
  guard(name, impl, badPointer) {
    const vm = this;
    return function (...args) {
      if (name !== null && vm.starting && name !== 'proxy_log') {
        throw new Error(name + ' is not allowed during _start (Envoy allows only proxy_log and WASI)');
      }
      try {
        return impl.apply(vm, args);
      } catch (e) {
        if (e instanceof InvalidMemory) return badPointer;
        throw e;
      }
    };
  }

  currentStream() {
    return this.streams.get(this.effective) || null;
  }

  // WASI as cpp-host offers it to a proxy-wasm module: stdout/stderr go to the log, clocks, randomness, an empty
  // environment and no arguments, no files; proc_exit is an error.
  wasiFunctions() {
    const vm = this;
    return {
      fd_write(fd, iovs, iovsLength, writtenOut) {
        if (fd !== 1 && fd !== 2) return Wasi.EBADF;
        let written = 0;
        const parts = [];
        for (let k = 0; k < iovsLength; k++) {
          vm.check((iovs >>> 0) + 8 * k, 8);
          const pointer = vm.view.getUint32(iovs + 8 * k, true);
          const size = vm.view.getUint32(iovs + 8 * k + 4, true);
          parts.push(vm.text(pointer, size));
          written += size;
        }
        vm.log(fd === 1 ? LogLevel.INFO : LogLevel.ERROR, parts.join('').replace(/\n$/, ''));
        vm.writeU32(writtenOut, written);
        return Wasi.SUCCESS;
      },
      fd_read: () => Wasi.ENOSYS,
      fd_seek: () => Wasi.ENOSYS,
      fd_close: () => Wasi.ENOSYS,
      fd_fdstat_get: () => Wasi.EBADF,
      fd_fdstat_set_flags: () => Wasi.ENOSYS,
      fd_prestat_get: () => Wasi.EBADF,
      fd_prestat_dir_name: () => Wasi.ENOSYS,
      path_open: () => Wasi.ENOSYS,
      path_filestat_get: () => Wasi.ENOSYS,
      fd_filestat_get: () => Wasi.ENOSYS,
      environ_get: () => Wasi.SUCCESS,
      environ_sizes_get(countOut, sizeOut) {
        vm.writeU32(countOut, 0);
        vm.writeU32(sizeOut, 0);
        return Wasi.SUCCESS;
      },
      args_get: () => Wasi.SUCCESS,
      args_sizes_get(countOut, sizeOut) {
        vm.writeU32(countOut, 0);
        vm.writeU32(sizeOut, 0);
        return Wasi.SUCCESS;
      },
      clock_time_get(clockId, precision, timeOut) {
        // 0 = realtime, 1 = monotonic; the CPU-time clocks are not offered.
        if (clockId === 0) {
          vm.writeU64(timeOut, BigInt(Date.now()) * 1000000n);
        } else if (clockId === 1) {
          vm.writeU64(timeOut, process.hrtime.bigint());
        } else {
          return Wasi.EINVAL;
        }
        return Wasi.SUCCESS;
      },
      random_get(pointer, size) {
        pointer >>>= 0;
        size >>>= 0;
        vm.check(pointer, size);
        crypto.randomFillSync(vm.u8, pointer, size);
        return Wasi.SUCCESS;
      },
      sched_yield: () => Wasi.SUCCESS,
      poll_oneoff: () => Wasi.ENOSYS,
      proc_exit(code) {
        throw new Error('proc_exit(' + code + ') is an error in Envoy');
      },
    };
  }

  envFunctions() {
    return {
      proxy_log(level, pointer, size) {
        this.log(level, this.text(pointer, size));
        return Result.OK;
      },
      proxy_get_log_level(levelOut) {
        this.writeU32(levelOut, this.config.logLevel);
        return Result.OK;
      },
      proxy_get_current_time_nanoseconds(timeOut) {
        this.writeU64(timeOut, BigInt(Date.now()) * 1000000n);
        return Result.OK;
      },
      proxy_set_tick_period_milliseconds(period) {
        this.tickPeriod = Math.max(0, period);
        this.nextTickAt = this.tickPeriod === 0 ? Infinity : Date.now() + this.tickPeriod;
        return Result.OK;
      },
      proxy_done() {
        return Result.OK;
      },

      // ---- buffers ----
      proxy_get_buffer_bytes(type, start, maxSize, dataOut, sizeOut) {
        const buffer = this.buffer(type);
        if (buffer === null) return Result.NOT_FOUND;
        if (start < 0 || maxSize < 0) return Result.BAD_ARGUMENT;
        // "Don't overread": the range is clamped to the buffer.
        const from = Math.min(start, buffer.length);
        const to = from + Math.min(maxSize, buffer.length - from);
        return this.writeOut(buffer, dataOut, sizeOut, from, to);
      },
      proxy_get_buffer_status(type, sizeOut, flagsOut) {
        const buffer = this.buffer(type);
        if (buffer === null) return Result.NOT_FOUND;
        this.writeU32(sizeOut, buffer.length);
        this.writeU32(flagsOut, 0);
        return Result.OK;
      },
      proxy_set_buffer_bytes(type, start, size, pointer, valueSize) {
        const stream = this.currentStream();
        if (type !== BufferType.REQUEST_BODY || stream === null || stream.body === null) {
          return this.buffer(type) === null ? Result.NOT_FOUND : Result.BAD_ARGUMENT;
        }
        const body = stream.body;
        if (start < 0 || start > body.length || size < 0) return Result.BAD_ARGUMENT;
        const end = Math.min(start + size, body.length);
        stream.body = Buffer.concat([body.subarray(0, start), this.read(pointer, valueSize), body.subarray(end)]);
        return Result.OK;
      },

      // ---- header maps ----
      proxy_get_header_map_pairs(type, dataOut, sizeOut) {
        const map = this.map(type);
        if (map === null) return Result.NOT_FOUND;
        return this.writeOut(encodeMap(map), dataOut, sizeOut);
      },
      proxy_get_header_map_size(type, sizeOut) {
        const map = this.map(type);
        if (map === null) return Result.NOT_FOUND;
        this.writeU32(sizeOut, encodeMap(map).length);
        return Result.OK;
      },
      proxy_get_header_map_value(type, keyPointer, keySize, dataOut, sizeOut) {
        const map = this.map(type);
        if (map === null) return Result.NOT_FOUND;
        const key = this.text(keyPointer, keySize).toLowerCase();
        const pair = map.find(([k]) => k === key);
        if (pair === undefined) return Result.NOT_FOUND;
        return this.writeOut(Buffer.from(pair[1], 'utf8'), dataOut, sizeOut);
      },
      proxy_set_header_map_pairs(type, pointer, size) {
        const map = this.writableMap(type);
        if (map === null) return this.mapWriteStatus(type);
        const pairs = decodeMap(this.read(pointer, size));
        if (pairs === null) return Result.SERIALIZATION_FAILURE;
        map.length = 0;
        for (const [k, v] of pairs) map.push([k.toLowerCase(), v]);
        return Result.OK;
      },
      proxy_replace_header_map_value(type, keyPointer, keySize, valuePointer, valueSize) {
        const map = this.writableMap(type);
        if (map === null) return this.mapWriteStatus(type);
        const key = this.text(keyPointer, keySize).toLowerCase();
        const value = this.text(valuePointer, valueSize);
        const at = map.findIndex(([k]) => k === key);
        const kept = map.filter(([k]) => k !== key);
        map.length = 0;
        map.push(...kept);
        map.splice(at < 0 ? map.length : at, 0, [key, value]);
        return Result.OK;
      },
      proxy_add_header_map_value(type, keyPointer, keySize, valuePointer, valueSize) {
        const map = this.writableMap(type);
        if (map === null) return this.mapWriteStatus(type);
        map.push([this.text(keyPointer, keySize).toLowerCase(), this.text(valuePointer, valueSize)]);
        return Result.OK;
      },
      proxy_remove_header_map_value(type, keyPointer, keySize) {
        const map = this.writableMap(type);
        if (map === null) return this.mapWriteStatus(type);
        const key = this.text(keyPointer, keySize).toLowerCase();
        const kept = map.filter(([k]) => k !== key);
        map.length = 0;
        map.push(...kept);
        return Result.OK;
      },

      // ---- properties: path segments are separated by NUL ----
      proxy_get_property(pathPointer, pathSize, dataOut, sizeOut) {
        const key = this.text(pathPointer, pathSize);
        const stream = this.currentStream();
        let value = stream !== null ? stream.properties.get(key) : undefined;
        if (value === undefined) value = this.rootProperties.get(key);
        if (value === undefined) return Result.NOT_FOUND;
        return this.writeOut(value, dataOut, sizeOut);
      },
      proxy_set_property(pathPointer, pathSize, valuePointer, valueSize) {
        const key = this.text(pathPointer, pathSize);
        const value = this.read(valuePointer, valueSize);
        const stream = this.currentStream();
        (stream !== null ? stream.properties : this.rootProperties).set(key, value);
        return Result.OK;
      },

      // ---- stream control: applied after the guest call returns ----
      proxy_continue_stream(type) {
        const stream = this.currentStream();
        if (stream === null) return Result.NOT_FOUND;
        if (type !== 0 && type !== 1) return Result.BAD_ARGUMENT;
        if (type === 0) stream.continuePending = true;
        return Result.OK;
      },
      proxy_close_stream() {
        return this.currentStream() === null ? Result.NOT_FOUND : Result.OK;
      },
      proxy_send_local_response(status, detailsPointer, detailsSize, bodyPointer, bodySize, headersPointer,
          headersSize) {
        const stream = this.currentStream();
        if (stream === null) return Result.NOT_FOUND;
        if (decodeMap(this.read(headersPointer, headersSize)) === null) return Result.SERIALIZATION_FAILURE;
        if (stream.localReply === null) {
          stream.localReply = { status, details: this.text(detailsPointer, detailsSize),
            body: this.text(bodyPointer, bodySize) };
        }
        return Result.OK;
      },
      proxy_set_effective_context(contextId) {
        if (contextId !== this.rootId && !this.streams.has(contextId)) return Result.BAD_ARGUMENT;
        this.effective = contextId;
        return Result.OK;
      },

      // ---- HTTP calls: no upstream is reachable from the bench, every call times out ----
      proxy_http_call(upstreamPointer, upstreamSize, headersPointer, headersSize, bodyPointer, bodySize,
          trailersPointer, trailersSize, timeout, callIdOut) {
        const headers = decodeMap(this.read(headersPointer, headersSize));
        if (headers === null) return Result.SERIALIZATION_FAILURE;
        for (const required of [':method', ':path', ':authority']) {
          if (!headers.some(([k]) => k === required)) return Result.BAD_ARGUMENT;
        }
        this.lastHttpCallId += 4;
        const callId = this.lastHttpCallId;
        this.writeU32(callIdOut, callId);
        this.ready.push({ http: callId });
        return Result.OK;
      },

      // ---- shared data ----
      proxy_get_shared_data(keyPointer, keySize, dataOut, sizeOut, casOut) {
        const entry = this.shared.data.get(this.text(keyPointer, keySize));
        if (entry === undefined) return Result.NOT_FOUND;
        const status = this.writeOut(entry.value, dataOut, sizeOut);
        if (status === Result.OK) this.writeU32(casOut, entry.cas);
        return status;
      },
      proxy_set_shared_data(keyPointer, keySize, valuePointer, valueSize, cas) {
        const key = this.text(keyPointer, keySize);
        const current = this.shared.data.get(key);
        if (cas !== 0 && current !== undefined && current.cas !== cas) return Result.CAS_MISMATCH;
        this.shared.data.set(key, { value: this.read(valuePointer, valueSize), cas: this.shared.nextCas++ });
        return Result.OK;
      },

      // ---- metrics: ids encode the type in the low two bits (counter 4k, gauge 4k+1, histogram 4k+2) ----
      proxy_define_metric(type, namePointer, nameSize, idOut) {
        if (type < 0 || type > 2) return Result.BAD_ARGUMENT;
        const id = this.metricIds[type];
        this.metricIds[type] += 4;
        this.metrics.set(id, { name: this.text(namePointer, nameSize), value: 0n });
        this.writeU32(idOut, id);
        return Result.OK;
      },
      proxy_increment_metric(id, delta) {
        const metric = this.metrics.get(id);
        if (metric === undefined) return Result.NOT_FOUND;
        metric.value += delta;
        return Result.OK;
      },
      proxy_record_metric(id, value) {
        const metric = this.metrics.get(id);
        if (metric === undefined) return Result.NOT_FOUND;
        metric.value = value;
        return Result.OK;
      },
      proxy_get_metric(id, valueOut) {
        const metric = this.metrics.get(id);
        if (metric === undefined) return Result.NOT_FOUND;
        this.writeU64(valueOut, BigInt.asUintN(64, metric.value));
        return Result.OK;
      },

      // ---- Higress extensions ----
      proxy_get_upstream_hosts(dataOut, sizeOut) {
        const stream = this.currentStream();
        const clusterName = stream === null ? undefined : stream.properties.get('cluster_name');
        if (clusterName === undefined || clusterName.toString('utf8') !== this.config.cluster) {
          this.writeU32(dataOut, 0);
          this.writeU32(sizeOut, 0);
          return Result.OK;
        }
        return this.writeOut(this.hosts, dataOut, sizeOut);
      },
      proxy_set_upstream_override_host(pointer, size) {
        const stream = this.currentStream();
        if (stream === null) return Result.BAD_ARGUMENT;
        stream.override = this.text(pointer, size);
        stream.overrideAfterRouting = stream.headersForwarded;
        return Result.OK;
      },
      proxy_redis_init(clusterPointer, clusterSize, userPointer, userSize, passwordPointer, passwordSize, timeout) {
        const cluster = this.text(clusterPointer, clusterSize);
        const base = cluster.split('?')[0];
        if (this.config.redis === null || base !== this.config.redis.cluster) return Result.BAD_ARGUMENT;
        const database = Number.parseInt((/[?&]db=(\d+)/.exec(cluster) || [])[1] || '0', 10);
        let username = this.text(userPointer, userSize);
        let password = this.text(passwordPointer, passwordSize);
        if (!username && !password) {
          username = this.config.redis.username;
          password = this.config.redis.password;
        }
        const previous = this.links.get(base);
        if (previous !== undefined) previous.close();
        this.links.set(base, new RedisLink(this.config.redis, username, password, database, timeout,
          (token, status, reply) => this.redisArrived(token, status, reply)));
        return Result.OK;
      },
      proxy_redis_call(clusterPointer, clusterSize, queryPointer, querySize, tokenOut) {
        const base = this.text(clusterPointer, clusterSize).split('?')[0];
        if (this.config.redis === null || base !== this.config.redis.cluster) return Result.BAD_ARGUMENT;
        const link = this.links.get(base);
        if (link === undefined) return Result.INTERNAL_FAILURE;
        const query = this.read(queryPointer, querySize);
        this.check(tokenOut >>> 0, 4);
        this.lastToken += 4;
        const token = this.lastToken;
        this.outstanding++;
        this.redisCalls++;
        if (this.config.trace) this.commands.push(commandWord(query));
        link.send(query, token);
        this.writeU32(tokenOut, token);
        return Result.OK;
      },
    };
  }

  buffer(type) {
    const stream = this.currentStream();
    switch (type) {
      case BufferType.REQUEST_BODY: return stream === null ? null : stream.body;
      case BufferType.VM_CONFIGURATION: return this.buffers.vm;
      case BufferType.PLUGIN_CONFIGURATION: return this.buffers.plugin;
      case BufferType.REDIS_CALL_RESPONSE: return this.buffers.redis;
      case BufferType.HTTP_CALL_RESPONSE_BODY: return this.buffers.http;
      default: return null;
    }
  }

  map(type) {
    const stream = this.currentStream();
    if (type === MapType.HTTP_CALL_RESPONSE_HEADERS || type === MapType.HTTP_CALL_RESPONSE_TRAILERS) {
      return this.buffers.http === null ? null : [];
    }
    return stream !== null && type === MapType.REQUEST_HEADERS ? stream.headers : null;
  }

  /** Request headers are writable until they went on to the router, and never during proxy_on_log. */
  writableMap(type) {
    const stream = this.currentStream();
    return stream !== null && type === MapType.REQUEST_HEADERS && !stream.headersForwarded && !stream.inLog
      ? stream.headers : null;
  }

  mapWriteStatus(type) {
    return this.map(type) === null ? Result.NOT_FOUND : Result.BAD_ARGUMENT;
  }

  // ---- replies -----------------------------------------------------------------------------------------------------

  redisArrived(token, status, reply) {
    if (!this.alive) return;
    this.outstanding--;
    this.ready.push({ token, status, reply });
    if (this.wake) this.wake();
  }

  /**
   * Delivers replies until none is due: each Redis reply through proxy_on_redis_call_response on the root context
   * (buffer 9 readable only during that call), each HTTP call as a timeout. A Redis link that stays silent longer
   * than its timeout fails its calls with status 1, as Envoy's client does.
   */
  async drain() {
    while (this.alive && (this.ready.length > 0 || this.outstanding > 0)) {
      if (this.ready.length === 0) await this.waitForReply();
      const next = this.ready.shift();
      if (next === undefined) continue;
      if (next.http !== undefined) {
        this.buffers.http = Buffer.alloc(0);
        try {
          this.call('proxy_on_http_call_response', this.rootId, this.rootId, next.http, 0, 0, 0);
        } finally {
          this.buffers.http = null;
        }
        continue;
      }
      if (this.config.trace) this.replies.push(next.reply.toString('base64'));
      this.buffers.redis = next.reply;
      try {
        this.call('proxy_on_redis_call_response', this.rootId, this.rootId, next.token, next.status,
          next.reply.length);
      } finally {
        this.buffers.redis = null;
      }
    }
  }

  waitForReply() {
    const timeout = Math.max(...[...this.links.values()].map(link => link.timeoutMillis), 1000);
    return new Promise(resolve => {
      const timer = setTimeout(() => {
        this.wake = null;
        for (const link of this.links.values()) link.fail(new Error('no reply within ' + timeout + ' ms'));
        resolve();
      }, timeout);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
    });
  }

  /** proxy_on_tick when due (outside any request's timing). */
  async tickIfDue() {
    if (this.alive && Date.now() >= this.nextTickAt) {
      this.nextTickAt = Date.now() + this.tickPeriod;
      this.call('proxy_on_tick', this.rootId, this.rootId);
      await this.drain();
    }
  }

  // ---- one request ---------------------------------------------------------------------------------------------

  /**
   * Context create, request headers, the whole body in one proxy_on_request_body (end of stream), the replies the
   * decision waits for, then proxy_on_log / proxy_on_done / proxy_on_delete and the replies sent meanwhile (the
   * release). Returns the guest's time (outermost export calls only) and what the request got. extraHeaders follow
   * the usual four request headers.
   */
  async request(body, extraHeaders) {
    this.guestNs = 0n;
    this.commands = [];
    this.replies = [];
    const callsBefore = this.redisCalls;
    const wallStart = process.hrtime.bigint();
    const cpuStart = process.cpuUsage();
    const c = this.config;
    const properties = new Map([['route_name', Buffer.from(c.route, 'utf8')],
      ['cluster_name', Buffer.from(c.cluster, 'utf8')]]);
    const headers = [[':method', 'POST'], [':path', c.path], [':authority', c.authority],
      ['content-type', c.contentType], ...extraHeaders];
    const stream = new Stream(this.nextContextId++, properties, headers);
    this.streams.set(stream.id, stream);
    try {
      this.call('proxy_on_context_create', stream.id, stream.id, this.rootId);
      const headerStatus = this.call('proxy_on_request_headers', stream.id, stream.id, headers.length, 0);
      this.afterHeaders(stream, headerStatus);
      await this.drain();
      stream.body = body;
      if (stream.localReply === null && !stream.stopAll) {
        this.afterBody(stream, this.call('proxy_on_request_body', stream.id, stream.id, body.length, 1));
      }
      await this.drain();
      if (stream.stopAll && stream.headersForwarded && stream.localReply === null) {
        // After StopAll and proxy_continue_stream the buffered body reaches the filter in one callback.
        stream.stopAll = false;
        this.afterBody(stream, this.call('proxy_on_request_body', stream.id, stream.id, body.length, 1));
        await this.drain();
      }
      stream.inLog = true;
      this.call('proxy_on_log', stream.id, stream.id);
      this.call('proxy_on_done', stream.id, stream.id);
      this.call('proxy_on_delete', stream.id, stream.id);
      this.streams.delete(stream.id);
      await this.drain();
    } finally {
      this.streams.delete(stream.id);
    }
    this.requestsServed++;
    const cpu = process.cpuUsage(cpuStart);
    return {
      guestNs: this.guestNs,
      wallNs: process.hrtime.bigint() - wallStart,
      cpuNs: BigInt(cpu.user + cpu.system) * 1000n,
      override: stream.override,
      routed: stream.override !== null && !stream.overrideAfterRouting && stream.localReply === null,
      localReply: stream.localReply,
      stalled: stream.localReply === null && !stream.headersForwarded,
      redisCalls: this.redisCalls - callsBefore,
      commands: this.commands,
      replies: this.replies,
    };
  }

  /** Envoy's conversion of the header status: StopIteration survives only on request headers under ABI 0.2.100. */
  afterHeaders(stream, status) {
    if (stream.localReply !== null) return;
    if (status === 0 || status === 2) {
      stream.headersForwarded = true;
    } else if (status === 1 && typeof this.x.proxy_abi_version_0_2_100 === 'function') {
      stream.stopAll = false;
    } else {
      stream.stopAll = true;
    }
  }

  afterBody(stream, status) {
    if (stream.localReply === null && status === 0) stream.headersForwarded = true;
  }
}

// ---- the benchmark loop ------------------------------------------------------------------------------------------

function percentile(sorted, fraction) {
  if (sorted.length === 0) return -1n;
  return sorted[Math.max(0, Math.ceil(fraction * sorted.length) - 1)];
}

function median(sorted) {
  const n = sorted.length;
  if (n === 0) return -1n;
  return n % 2 === 1 ? sorted[(n - 1) / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2n;
}

function sortBig(values) {
  return values.slice().sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Runs one body: warm-up, then timed requests; a trap restarts the VM (untimed) and is reported. */
async function runCell(state, body) {
  const { config } = state;
  const cell = { warmUp: 0, guest: [], wall: [], cpu: [], routed: 0, localReplies: 0, stalled: 0, traps: 0,
    redisCalls: 0, requests: 0, errors: 0, firstError: null, status: 'ok' };
  let consecutiveTraps = 0;
  let lastReply = null;
  const once = async measured => {
    // With several VMs, requests go to them in turn, as connections spread over Envoy's workers.
    const slot = state.turn++ % state.vms.length;
    let vm = state.vms[slot];
    let result;
    let errorsBefore = 0;
    try {
      if (vm === null || !vm.alive) {
        vm = null;
        vm = state.vms[slot] = new Vm(state.module, config, state.shared);
      }
      await vm.tickIfDue();
      errorsBefore = vm.errorsLogged;
      result = await vm.request(body.bytes, body.headers);
    } catch (e) {
      if (!(e instanceof GuestTrap)) throw e;
      cell.traps++;
      consecutiveTraps++;
      out('trap', body.shape, body.bytes.length, vm === null ? 0 : vm.requestsServed, e.exportName,
        e.message + (e.guestStack ? ' [guest stack: ' + e.guestStack + ']' : '')
          + (vm === null ? '' : ' — ' + vm.logTail()));
      if (vm !== null) vm.close();
      return false;
    }
    consecutiveTraps = 0;
    cell.errors += vm.errorsLogged - errorsBefore;
    if (cell.firstError === null && vm.errorsLogged > errorsBefore) cell.firstError = vm.firstError;
    if (config.trace) {
      out('trace', vm.requestsServed, result.override === null ? '-' : result.override, result.routed ? 1 : 0,
        result.localReply === null ? '-' : result.localReply.status, result.commands.join(',') || '-',
        result.replies.join(',') || '-');
    }
    if (measured) {
      cell.guest.push(result.guestNs);
      cell.wall.push(result.wallNs);
      cell.cpu.push(result.cpuNs);
      cell.requests++;
      cell.redisCalls += result.redisCalls;
      if (result.routed) cell.routed++;
      if (result.localReply !== null) cell.localReplies++;
      if (result.stalled) cell.stalled++;
    }
    if (result.localReply !== null) lastReply = result.localReply;
    return true;
  };
  const w = config.warmup;
  const warmUpEnd = Date.now() + w.seconds * 1000;
  while (cell.warmUp < w.max && (cell.warmUp < w.min || Date.now() < warmUpEnd)) {
    await once(false);
    cell.warmUp++;
    if (consecutiveTraps >= CONSECUTIVE_TRAPS_LIMIT) break;
  }
  const m = config.measure;
  const measureEnd = Date.now() + m.seconds * 1000;
  while (consecutiveTraps < CONSECUTIVE_TRAPS_LIMIT && cell.guest.length < m.max
      && (cell.guest.length < m.min || Date.now() < measureEnd)) {
    await once(true);
  }
  if (consecutiveTraps >= CONSECUTIVE_TRAPS_LIMIT) {
    cell.status = 'abandoned after ' + CONSECUTIVE_TRAPS_LIMIT + ' traps in a row';
  }
  const guest = sortBig(cell.guest);
  if (lastReply !== null) out('reply', body.shape, body.bytes.length, lastReply.status, lastReply.body);
  out('cell', body.shape, body.bytes.length, cell.warmUp, guest.length, median(guest), percentile(guest, 0.9),
    median(sortBig(cell.wall)), median(sortBig(cell.cpu)), cell.routed, cell.localReplies, cell.stalled, cell.traps,
    cell.redisCalls, cell.requests, cell.errors, cell.firstError === null ? '-' : cell.firstError, cell.status);
}

async function main() {
  const config = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  config.redis = config.redis || null;
  out('engine', process.version, process.versions.v8, (os.cpus()[0] || { model: '?' }).model, os.cpus().length);
  const wasm = fs.readFileSync(config.wasm);
  const compileStart = process.hrtime.bigint();
  const module = new WebAssembly.Module(wasm);
  out('module', wasm.length, (Number(process.hrtime.bigint() - compileStart) / 1e6).toFixed(1));
  if (config.redis !== null) {
    if (config.redis.flush) await adminCommand(config.redis, ['FLUSHALL']);
    const info = await adminCommand(config.redis, ['INFO', 'server']);
    out('redis-version', (/redis_version:([^\r\n]*)/.exec(info) || [])[1] || '?');
  }
  const vmCount = Math.max(1, config.vms || 1);
  const state = { config, module, vms: new Array(vmCount).fill(null), turn: 0, shared: { data: new Map(), nextCas: 1 } };
  for (const body of config.bodies) {
    const bytes = fs.readFileSync(body.file);
    out('begin', body.shape, bytes.length);
    await runCell(state, { shape: body.shape, bytes, headers: body.headers || [] });
  }
  for (const vm of state.vms) if (vm !== null) vm.close();
  out('end', 'ok');
}

main().then(() => process.exit(0), e => {
  out('error', e && e.stack ? e.stack : String(e));
  process.exit(1);
});
