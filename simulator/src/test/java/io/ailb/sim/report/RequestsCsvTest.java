package io.ailb.sim.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class RequestsCsvTest {
    @Test
    void valuesWithSeparatorsAreQuotedTheirQuotesDoubled() {
        assertEquals("plugin:cache_aware", RequestsCsv.field("plugin:cache_aware"));
        assertEquals(
                "\"plugin:{\"\"lb_policy\"\":\"\"cache_aware\"\",\"\"x\"\":1}\"",
                RequestsCsv.field("plugin:{\"lb_policy\":\"cache_aware\",\"x\":1}"));
        assertEquals("\"line\nbreak\"", RequestsCsv.field("line\nbreak"));
    }
}
