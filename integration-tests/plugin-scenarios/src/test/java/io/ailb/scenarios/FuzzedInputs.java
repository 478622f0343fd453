package io.ailb.scenarios;

import io.ailb.emulator.ClusterHost;
import io.ailb.lb.config.ConfigField;
import io.ailb.lb.config.LbRule;
import io.ailb.lb.config.RuleMatcher;
import io.ailb.lb.policy.PolicyRegistry;
import io.ailb.lb.redis.RedisTarget;
import io.ailb.lb.shell.ShellFixture;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * Generates hostile inputs for {@link FuzzedInputsThroughWasmTest} from one seeded {@link Random}: request bodies
 * (valid chats and prompts, the same with bytes flipped, cut or spliced, random bytes, deep nesting, many tiny
 * messages) with their content type, encoding and chunking; host lists with odd health and metrics text; and plugin
 * configurations written from the real field names, policy names and range ends, or a valid one with bytes mutated.
 * Sizes are bounded (at most a few hundred KiB), so every input costs bounded work.
 */
final class FuzzedInputs {
    /** One request: what {@link FuzzedInputsThroughWasmTest} sends, and a short description for failure messages. */
    record Request(
            String kind,
            byte[] body,
            String contentType,
            String contentEncoding,
            int[] chunkEnds,
            List<ClusterHost> hosts) {
        @Override
        public String toString() {
            String text = new String(body, 0, Math.min(body.length, 120), StandardCharsets.UTF_8);
            return kind + ", " + body.length + " bytes, content-type " + contentType + ", encoding "
                    + contentEncoding + ", chunks at " + Arrays.toString(chunkEnds) + ", hosts " + hosts
                    + ", starting " + text;
        }
    }

    private static final String[] CONTENT_TYPES = {
        "text/plain; charset=utf-8", "application/octet-stream", "application/grpc", "", "application/json; x=\u00e9"
    };
    private static final String[] ENCODINGS = {"gzip", "identity", " ", "br, identity"};
    private static final String[] ROLES = {"user", "assistant", "system", "tool", "developer", "", "USER", "u\u0000"};
    private static final String[] TEXTS = {
        "hello",
        "be brief",
        "",
        "\\n\\t\\\"",
        "\\u00e9\\ud83d\\ude00",
        "\\ud800",
        "\\u0000",
        "caf\u00e9",
        "\u4f60\u597d"
    };
    /** Splices that break JSON in the places a parser gets wrong: open containers, escapes, surrogates. */
    private static final String[] SPLICES = {
        "[",
        "{",
        "]",
        "}",
        "\"",
        "\\",
        "\\u",
        "\\ud83d",
        ",",
        ":",
        "null",
        "1e999",
        "-0",
        "\"role\":",
        "\"content\":",
        "\"messages\":[",
        "{\"type\":\"text\",\"text\":",
        "\u0000",
        "\u00ff",
        "\r\n"
    };

    private static final String[] HEALTH = {"Healthy", "Unhealthy", "Degraded", "", "healthy", "Healthy\u0000"};
    private static final String[] METRIC_NAMES = {
        "vllm:num_requests_waiting", "vllm:num_requests_running", "vllm:gpu_cache_usage_perc",
                "vllm:kv_cache_usage_perc",
        "sglang:num_queue_reqs", "sglang:num_running_reqs", "sglang:token_usage", "vllm:lora_requests_info"
    };
    private static final String[] METRIC_VALUES = {
        "0", "3", "0.5", "-1", "NaN", "+Inf", "-Inf", "1e308", "1e-320", "abc", "", "9223372036854775808"
    };
    private static final String[] ADDRESSES = {
        ShellFixture.A, ShellFixture.B, ShellFixture.C, "10.0.0.9:8000", "[::1]:8000", "", "not an address"
    };

    private final Random random;
    private final List<String> fieldNames;
    private final List<String> bounds;

    FuzzedInputs(Random random) {
        this.random = random;
        this.fieldNames = fieldNames();
        this.bounds = bounds();
    }

    Request request() {
        int kind = random.nextInt(100);
        String name;
        byte[] body;
        if (kind < 5) {
            name = "empty";
            body = new byte[0];
        } else if (kind < 30) {
            name = "chat";
            body = utf8(chat(1 + random.nextInt(12), true));
        } else if (kind < 40) {
            name = "prompt";
            body = utf8(prompt());
        } else if (kind < 75) {
            name = "mutated";
            body = mutate(utf8(random.nextBoolean() ? chat(1 + random.nextInt(8), true) : prompt()));
        } else if (kind < 85) {
            name = "random bytes";
            body = new byte[1 + random.nextInt(512)];
            random.nextBytes(body);
        } else if (kind < 93) {
            name = "deep nesting";
            body = utf8(deep(1 + random.nextInt(400)));
        } else {
            name = "many messages";
            body = utf8(chat(100 + random.nextInt(900), false));
        }
        String contentType = random.nextInt(10) < 7 ? "application/json" : pick(CONTENT_TYPES);
        if (random.nextInt(20) == 0) {
            contentType = null;
        }
        String encoding = random.nextInt(10) == 0 ? pick(ENCODINGS) : null;
        return new Request(name, body, contentType, encoding, chunkEnds(body.length), hosts());
    }

    /** A plugin configuration: written from the field vocabulary, or a valid one with one value or some bytes changed. */
    String config() {
        int kind = random.nextInt(10);
        if (kind < 4) {
            StringBuilder json = new StringBuilder();
            object(json, 0);
            return json.toString();
        }
        String policy = pick(PolicyRegistry.names());
        boolean cluster = PolicyRegistry.lbType(policy).equals(LbRule.LB_TYPE_CLUSTER);
        String lbConfig = ShellFixture.redisConfig(quote(pick(fieldNames)) + ":" + value(0));
        String rule = "\"lb_type\":\"" + (cluster ? LbRule.LB_TYPE_CLUSTER : LbRule.LB_TYPE_ENDPOINT)
                + "\",\"lb_policy\":\"" + policy + "\",\"lb_config\":{" + lbConfig + "}";
        String config = random.nextBoolean()
                ? "{" + rule + "}"
                : "{\"_rules_\":[{\"_match_route_\":[\"" + ShellFixture.ROUTE + "\"]," + rule + "}]}";
        return kind < 7 ? config : new String(mutate(utf8(config)), StandardCharsets.UTF_8);
    }

    private String chat(int messages, boolean longTexts) {
        StringBuilder json = new StringBuilder("{\"model\":\"m\",");
        if (random.nextBoolean()) {
            json.append("\"stream\":true,\"max_tokens\":")
                    .append(random.nextInt(5000))
                    .append(',');
        }
        json.append("\"messages\":[");
        for (int i = 0; i < messages; i++) {
            json.append(i == 0 ? "" : ",")
                    .append("{\"role\":\"")
                    .append(pick(ROLES))
                    .append("\",\"content\":");
            int content = random.nextInt(10);
            if (content < 6) {
                json.append('"').append(text(longTexts)).append('"');
            } else if (content < 8) {
                json.append("[{\"type\":\"text\",\"text\":\"")
                        .append(text(longTexts))
                        .append("\"},{\"type\":\"image_url\",\"image_url\":{\"url\":\"data:x\"}}]");
            } else {
                json.append(random.nextBoolean() ? "null" : "42");
            }
            json.append('}');
        }
        return json.append("]}").toString();
    }

    private String prompt() {
        if (random.nextBoolean()) {
            return "{\"model\":\"m\",\"prompt\":\"" + text(false).repeat(1 + random.nextInt(500)) + "\"}";
        }
        StringBuilder json = new StringBuilder("{\"prompt\":[");
        int parts = 1 + random.nextInt(20);
        for (int i = 0; i < parts; i++) {
            json.append(i == 0 ? "" : ",").append(random.nextBoolean() ? "\"" + text(true) + "\"" : "[1,2,3]");
        }
        return json.append("]}").toString();
    }

    /** A few pieces of text with escapes; with {@code mayBeLong}, one in 20 has up to 16 KiB more. */
    private String text(boolean mayBeLong) {
        StringBuilder text = new StringBuilder();
        int pieces = 1 + random.nextInt(6);
        for (int i = 0; i < pieces; i++) {
            text.append(pick(TEXTS));
        }
        if (mayBeLong && random.nextInt(20) == 0) {
            text.append("x".repeat(random.nextInt(16 << 10)));
        }
        return text.toString();
    }

    private String deep(int depth) {
        String open = random.nextBoolean() ? "[" : "{\"a\":";
        String close = open.equals("[") ? "]" : "}";
        String nested = open.repeat(depth) + "1" + close.repeat(depth);
        return random.nextBoolean()
                ? "{\"messages\":[{\"role\":\"user\",\"content\":" + nested + "}]}"
                : "{\"x\":" + nested + ",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    }

    /** One to four byte-level changes: flip, cut, splice a token, duplicate a slice. */
    private byte[] mutate(byte[] data) {
        byte[] out = data;
        int changes = 1 + random.nextInt(4);
        for (int i = 0; i < changes && out.length > 0; i++) {
            int at = random.nextInt(out.length);
            switch (random.nextInt(4)) {
                case 0 -> {
                    out = out.clone();
                    out[at] = (byte) random.nextInt(256);
                }
                case 1 -> out = Arrays.copyOf(out, at);
                case 2 -> out = splice(out, at, utf8(pick(SPLICES)));
                default -> {
                    int length = Math.min(out.length - at, 1 + random.nextInt(64));
                    out = splice(out, at, Arrays.copyOfRange(out, at, at + length));
                }
            }
        }
        return out;
    }

    private static byte[] splice(byte[] data, int at, byte[] insert) {
        byte[] out = new byte[data.length + insert.length];
        System.arraycopy(data, 0, out, 0, at);
        System.arraycopy(insert, 0, out, at, insert.length);
        System.arraycopy(data, at, out, at + insert.length, data.length - at);
        return out;
    }

    /** Where body chunks end: one to three chunks, the last ending the stream. */
    private int[] chunkEnds(int length) {
        if (length < 2 || random.nextBoolean()) {
            return new int[] {length};
        }
        int first = 1 + random.nextInt(length - 1);
        if (length - first < 2 || random.nextBoolean()) {
            return new int[] {first, length};
        }
        return new int[] {first, first + 1 + random.nextInt(length - first - 1), length};
    }

    /** Null (the cluster's usual healthy hosts) most of the time, else zero to four hosts with odd info. */
    private List<ClusterHost> hosts() {
        if (random.nextInt(5) != 0) {
            return null;
        }
        List<ClusterHost> hosts = new ArrayList<>();
        int count = random.nextInt(5);
        for (int i = 0; i < count; i++) {
            hosts.add(new ClusterHost(pick(ADDRESSES), pick(HEALTH), metrics()));
        }
        return hosts;
    }

    private String metrics() {
        StringBuilder text = new StringBuilder();
        int lines = random.nextInt(12);
        for (int i = 0; i < lines; i++) {
            switch (random.nextInt(6)) {
                case 0 -> text.append("# HELP ").append(pick(METRIC_NAMES)).append(" help");
                case 1 -> text.append(pick(METRIC_NAMES))
                        .append("{model_name=\"m\",max_lora=\"")
                        .append(pick(METRIC_VALUES))
                        .append("\",running_lora_adapters=\"a,b\"} ")
                        .append(pick(METRIC_VALUES));
                case 2 -> text.append(pick(METRIC_NAMES))
                        .append("{bad=\"unterminated ")
                        .append(pick(METRIC_VALUES));
                case 3 -> text.append(new String(mutate(utf8(pick(METRIC_NAMES) + " 1")), StandardCharsets.UTF_8));
                default -> text.append(pick(METRIC_NAMES)).append(' ').append(pick(METRIC_VALUES));
            }
            text.append(random.nextInt(8) == 0 ? "\r\n" : "\n");
        }
        return text.toString();
    }

    private void object(StringBuilder json, int depth) {
        json.append('{');
        Set<String> written = new LinkedHashSet<>();
        int members = random.nextInt(7);
        for (int i = 0; i < members; i++) {
            String name = random.nextInt(4) == 0 ? pick(TEXTS) : pick(fieldNames);
            if (!written.add(name)) {
                continue;
            }
            json.append(written.size() == 1 ? "" : ",").append(quote(name)).append(':');
            json.append(value(depth + 1));
        }
        json.append('}');
    }

    private String value(int depth) {
        switch (random.nextInt(depth < 3 ? 10 : 8)) {
            case 0:
                return quote(pick(PolicyRegistry.names()));
            case 1:
                return quote(pick(TEXTS));
            case 2:
            case 3:
                return pick(bounds);
            case 4:
                return Long.toString(random.nextLong());
            case 5:
                return random.nextBoolean() ? "true" : "false";
            case 6:
                return random.nextBoolean() ? "null" : quote(ShellFixture.ROUTE);
            case 7:
                return quote(random.nextBoolean() ? LbRule.LB_TYPE_CLUSTER : "redis.static");
            case 8:
                StringBuilder object = new StringBuilder();
                object(object, depth);
                return object.toString();
            default:
                StringBuilder array = new StringBuilder("[");
                int elements = random.nextInt(4);
                for (int i = 0; i < elements; i++) {
                    array.append(i == 0 ? "" : ",").append(value(depth + 1));
                }
                return array.append(']').toString();
        }
    }

    private static String quote(String text) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }

    private static List<String> fieldNames() {
        Set<String> names = new LinkedHashSet<>(List.of("_rules_", "_plugin_id_", "lb_polcy", "redisKeyTtl"));
        List<ConfigField> fields = new ArrayList<>(LbRule.FIELDS);
        fields.addAll(RuleMatcher.FIELDS);
        fields.addAll(RedisTarget.FIELDS);
        for (String policy : PolicyRegistry.names()) {
            fields.addAll(PolicyRegistry.fields(policy));
        }
        for (ConfigField field : fields) {
            names.add(field.name());
        }
        return List.copyOf(names);
    }

    /** Each range's ends and the numbers just outside them. */
    private static List<String> bounds() {
        List<String> bounds = new ArrayList<>(List.of("0", "-1", "1", "0.5", "1e3", "6379", "9223372036854775808"));
        for (String policy : PolicyRegistry.names()) {
            for (ConfigField field : PolicyRegistry.fields(policy)) {
                for (Number end : new Number[] {field.minimum(), field.maximum()}) {
                    if (end != null) {
                        bounds.add(end.toString());
                        bounds.add(Double.toString(end.doubleValue() - 1));
                        bounds.add(Double.toString(end.doubleValue() + 1));
                    }
                }
            }
        }
        return List.copyOf(bounds);
    }

    private <T> T pick(List<T> values) {
        return values.get(random.nextInt(values.size()));
    }

    private String pick(String[] values) {
        return values[random.nextInt(values.length)];
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
