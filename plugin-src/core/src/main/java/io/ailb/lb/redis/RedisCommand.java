package io.ailb.lb.redis;

import io.ailb.codec.resp.RespEncoder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * One Redis command: either plain arguments ({@code HGET key field}) or a script call (script + KEYS + ARGV). Script
 * calls go out as {@code EVALSHA}; {@code RequestFlow} re-sends them as {@code EVAL} when Redis answers
 * {@code NOSCRIPT}.
 */
public final class RedisCommand {
    private final List<String> plainArgs;
    private final LuaScript script;
    private final List<String> keys;
    private final List<String> args;

    private RedisCommand(List<String> plainArgs, LuaScript script, List<String> keys, List<String> args) {
        this.plainArgs = plainArgs;
        this.script = script;
        this.keys = keys;
        this.args = args;
    }

    public static RedisCommand plain(String... args) {
        if (args.length == 0) {
            throw new IllegalArgumentException("empty command");
        }
        List<String> copy = new ArrayList<>(args.length);
        for (String arg : args) {
            copy.add(Objects.requireNonNull(arg, "argument"));
        }
        return new RedisCommand(
                Collections.unmodifiableList(copy), null, Collections.emptyList(), Collections.emptyList());
    }

    public static RedisCommand script(LuaScript script, List<String> keys, List<String> args) {
        return new RedisCommand(null, Objects.requireNonNull(script, "script"), copy(keys), copy(args));
    }

    /** This command with {@code arg} appended to its arguments (its ARGV for a script call). */
    public RedisCommand withArg(String arg) {
        Objects.requireNonNull(arg, "argument");
        return isScript()
                ? new RedisCommand(null, script, keys, appended(args, arg))
                : new RedisCommand(appended(plainArgs, arg), null, keys, args);
    }

    private static List<String> appended(List<String> list, String last) {
        List<String> longer = new ArrayList<>(list);
        longer.add(last);
        return Collections.unmodifiableList(longer);
    }

    public boolean isScript() {
        return script != null;
    }

    /** The script, or null for a plain command. */
    public LuaScript script() {
        return script;
    }

    /** Script KEYS (empty for a plain command). */
    public List<String> keys() {
        return keys;
    }

    /** Script ARGV (empty for a plain command). */
    public List<String> args() {
        return args;
    }

    /** The arguments as sent first: the plain arguments, or {@code EVALSHA sha1 numkeys keys… args…}. */
    public List<String> arguments() {
        return isScript() ? scriptCall("EVALSHA", script.sha1()) : plainArgs;
    }

    /** The RESP bytes to send first. */
    public byte[] encode() {
        return RespEncoder.command(arguments().toArray(new String[0]));
    }

    /** {@code EVALSHA sha1 numkeys keys… args…}. */
    public byte[] encodeEvalSha() {
        requireScript();
        return RespEncoder.command(scriptCall("EVALSHA", script.sha1()).toArray(new String[0]));
    }

    /** {@code EVAL source numkeys keys… args…}, the retry after {@code NOSCRIPT}. */
    public byte[] encodeEval() {
        requireScript();
        return RespEncoder.command(scriptCall("EVAL", script.source()).toArray(new String[0]));
    }

    private List<String> scriptCall(String verb, String scriptArg) {
        List<String> out = new ArrayList<>(3 + keys.size() + args.size());
        out.add(verb);
        out.add(scriptArg);
        out.add(Integer.toString(keys.size()));
        out.addAll(keys);
        out.addAll(args);
        return out;
    }

    private void requireScript() {
        if (!isScript()) {
            throw new IllegalStateException("not a script call: " + plainArgs);
        }
    }

    private static List<String> copy(List<String> values) {
        List<String> out = new ArrayList<>(values.size());
        for (String value : values) {
            out.add(Objects.requireNonNull(value, "argument"));
        }
        return Collections.unmodifiableList(out);
    }

    @Override
    public String toString() {
        return isScript() ? script.name() + " keys=" + keys + " args=" + args : String.join(" ", plainArgs);
    }
}
