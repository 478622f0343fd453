package io.ailb.lb.flow;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.ailb.codec.json.JsonValue;
import io.ailb.lb.config.ConfigException;
import io.ailb.lb.config.ConfigField;
import io.ailb.lb.config.LbRule;
import io.ailb.lb.config.RuleMatcher;
import io.ailb.lb.policy.PolicyRegistry;
import io.ailb.lb.redis.RedisTarget;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Any plugin configuration (docs/reliability.md, "Fuzzing"): {@link RouteTable#parse} builds a table or throws a
 * {@link ConfigException} naming the problem, never another exception, and a table it builds serves a request match
 * and a tick. Raw bytes mostly test the JSON envelope, so a second target writes configurations from the real field
 * names, policy names and range bounds, with the fuzzer choosing which and what values.
 */
final class RouteTableFuzzTest {
    private static final List<String> FIELD_NAMES = fieldNames();
    private static final List<Number> BOUNDS = bounds();
    private static final int MAX_MEMBERS = 8;
    private static final int MAX_DEPTH = 3;

    @FuzzTest(maxDuration = "60s")
    void anyBytesGiveARouteTableOrAConfigException(byte[] config) {
        check(config);
    }

    @FuzzTest(maxDuration = "60s")
    void configsOfRealFieldsGiveARouteTableOrAConfigException(FuzzedDataProvider data) {
        StringBuilder json = new StringBuilder();
        writeObject(data, json, 0);
        check(json.toString().getBytes(StandardCharsets.UTF_8));
    }

    private static void check(byte[] config) {
        RouteTable table;
        try {
            table = RouteTable.parse(config);
        } catch (ConfigException e) {
            assertNotNull(e.path());
            assertFalse(e.reason() == null || e.reason().isEmpty(), "a refusal says why");
            return;
        }
        for (String warning : table.warnings()) {
            assertFalse(warning.isEmpty());
        }
        table.match("route", "example.com", "outbound|8000||llm.static");
        assertNotNull(table.redisTargets());
        table.onTick(table.tickPeriodMillis());
    }

    private static void writeObject(FuzzedDataProvider data, StringBuilder json, int depth) {
        json.append('{');
        Set<String> written = new LinkedHashSet<>();
        int members = data.consumeInt(0, MAX_MEMBERS);
        for (int i = 0; i < members; i++) {
            String name = data.consumeBoolean() ? data.pickValue(FIELD_NAMES) : data.consumeString(12);
            if (!written.add(name)) {
                continue;
            }
            json.append(written.size() == 1 ? "" : ",").append(quote(name)).append(':');
            writeValue(data, json, depth + 1);
        }
        json.append('}');
    }

    private static void writeValue(FuzzedDataProvider data, StringBuilder json, int depth) {
        int kind = data.consumeInt(0, depth < MAX_DEPTH ? 9 : 7);
        switch (kind) {
            case 0 -> json.append(quote(data.pickValue(PolicyRegistry.names())));
            case 1 -> json.append(quote(data.consumeString(16)));
            case 2 -> json.append(data.pickValue(BOUNDS));
            case 3 -> json.append(data.consumeLong());
            case 4 -> json.append(JsonValue.number(Double.toString(data.consumeRegularDouble()))
                    .numberLexeme());
            case 5 -> json.append(data.consumeBoolean());
            case 6 -> json.append("null");
            case 7 -> json.append(quote(data.pickValue(List.of(LbRule.LB_TYPE_ENDPOINT, LbRule.LB_TYPE_CLUSTER))));
            case 8 -> writeObject(data, json, depth);
            default -> {
                json.append('[');
                int elements = data.consumeInt(0, 3);
                for (int i = 0; i < elements; i++) {
                    json.append(i == 0 ? "" : ",");
                    writeValue(data, json, depth + 1);
                }
                json.append(']');
            }
        }
    }

    private static String quote(String text) {
        return JsonValue.string(text).toJson();
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

    /** Each range's ends and the numbers just outside them, where off-by-one refusals hide. */
    private static List<Number> bounds() {
        List<Number> bounds = new ArrayList<>(List.of(0, -1, 1, Long.MAX_VALUE, Long.MIN_VALUE));
        for (String policy : PolicyRegistry.names()) {
            for (ConfigField field : PolicyRegistry.fields(policy)) {
                for (Number end : new Number[] {field.minimum(), field.maximum()}) {
                    if (end != null) {
                        bounds.add(end);
                        bounds.add(end.doubleValue() - 1);
                        bounds.add(end.doubleValue() + 1);
                    }
                }
            }
        }
        return List.copyOf(bounds);
    }
}
