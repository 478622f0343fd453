package io.ailb.lb.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ailb.lb.redis.RedisCommand;
import io.ailb.lb.redis.RedisTarget;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StepTest {
    @Test
    void aPrefixMatchIsTypedAndLoggedAfterTheAttributesBeforeIt() {
        Step step = Step.route("a:1")
                .withAttribute(Step.ATTR_POLICY, "prefix_cache")
                .withAttribute(Step.ATTR_INFLIGHT, "4")
                .withPrefixMatch(2)
                .withAttribute("cost", "9");
        assertEquals(2, step.prefixLength());
        assertEquals(
                List.of("lb_policy", "inflight_count", "cache_hit", "prefix_length", "cost"),
                List.copyOf(step.attributes().keySet()));
        assertEquals("true", step.attributes().get("cache_hit"));
        assertEquals("2", step.attributes().get("prefix_length"));
    }

    @Test
    void noMatchedBlockIsACacheMissOfLengthZero() {
        Step step = Step.route("a:1").withPrefixMatch(0);
        assertEquals(0, step.prefixLength());
        assertEquals(Map.of("cache_hit", "false", "prefix_length", "0"), step.attributes());
    }

    @Test
    void aStepReportsNoPrefixMatchUntilToldAndCopiesKeepIt() {
        assertEquals(
                Step.NO_PREFIX_MATCH,
                Step.route("a:1").withAttribute(Step.ATTR_POLICY, "x").prefixLength());
        assertEquals(Step.NO_PREFIX_MATCH, Step.fallback(FallbackReason.NO_BODY).prefixLength());
        Step matched = Step.route("a:1")
                .withPrefixMatch(5)
                .withAttribute("work", "1")
                .withRelease(new RedisTarget("r", 6379, "", "", 1, 0), RedisCommand.plain("PING"));
        assertEquals(5, matched.prefixLength());
    }

    @Test
    void thePrefixMatchCannotBeWrittenAsText() {
        assertThrows(IllegalArgumentException.class, () -> Step.route("a:1").withAttribute("prefix_length", "2"));
        assertThrows(IllegalArgumentException.class, () -> Step.route("a:1").withAttribute("cache_hit", "true"));
    }
}
