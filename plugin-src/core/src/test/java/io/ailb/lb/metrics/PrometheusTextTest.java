package io.ailb.lb.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PrometheusTextTest {
    @Test
    void seriesOfOneFamilyAreSummed() {
        assertEquals(5.0, PrometheusText.parse(Samples.VLLM).sum("vllm:num_requests_running"));
    }

    @Test
    void labelsAreParsedInOrder() {
        Map<String, String> expected = new LinkedHashMap<>();
        expected.put("engine", "0");
        expected.put("model_name", "qwen");
        assertEquals(
                expected,
                PrometheusText.parse(Samples.VLLM)
                        .samples("vllm:num_requests_running")
                        .get(0)
                        .labels());
    }

    @Test
    void escapedQuotesBackslashesAndNewlinesInLabelValuesAreDecoded() {
        MetricFamilies parsed = PrometheusText.parse("m{a=\"x\\\"y\\\\z\\nw\"} 1\n");
        assertEquals("x\"y\\z\nw", parsed.samples("m").get(0).labels().get("a"));
    }

    @Test
    void aClosingBraceInsideALabelValueDoesNotEndTheLabels() {
        assertEquals(2.0, PrometheusText.parse("m{a=\"}\",b=\"c\"} 2\n").sum("m"));
    }

    @Test
    void commentsAndBlankLinesAreSkipped() {
        MetricFamilies parsed = PrometheusText.parse("# HELP m x\n\n# TYPE m gauge\n  \nm 1\n# EOF\n");
        assertEquals(1.0, parsed.sum("m"));
    }

    @Test
    void aTrailingTimestampIsIgnored() {
        assertEquals(3.0, PrometheusText.parse("m{a=\"b\"} 3 1712345678000\n").sum("m"));
    }

    @Test
    void infinitiesAreKept() {
        MetricFamilies parsed = PrometheusText.parse("p +Inf\nn -Inf\n");
        assertEquals(Double.POSITIVE_INFINITY, parsed.sum("p"));
        assertEquals(Double.NEGATIVE_INFINITY, parsed.sum("n"));
    }

    @Test
    void aNaNSeriesDoesNotPoisonTheSum() {
        assertEquals(2.0, PrometheusText.parse("m{a=\"1\"} NaN\nm{a=\"2\"} 2\n").sum("m"));
    }

    @Test
    void aFamilyOfOnlyNaNSumsToNaN() {
        assertTrue(Double.isNaN(PrometheusText.parse("m NaN\n").sum("m")));
    }

    @Test
    void scientificNotationIsParsed() {
        assertEquals(1.5e9, PrometheusText.parse("m 1.5e+09\n").sum("m"));
    }

    @Test
    void malformedLinesAreSkippedAndTheRestIsKept() {
        MetricFamilies parsed = PrometheusText.parse("m{a=\"unterminated 1\nm{=\"x\"} 2\nm abc\nm 4\n");
        assertEquals(4.0, parsed.sum("m"));
    }

    @Test
    void windowsLineEndingsAreAccepted() {
        assertEquals(6.0, PrometheusText.parse("m 6\r\n").sum("m"));
    }

    @Test
    void onlyWantedFamiliesAreKept() {
        MetricFamilies parsed = PrometheusText.parse(Samples.VLLM, Collections.singleton("vllm:num_requests_waiting"));
        assertTrue(parsed.has("vllm:num_requests_waiting"));
        assertFalse(parsed.has("vllm:num_requests_running"));
    }

    @Test
    void anAbsentFamilySumsToNaN() {
        assertTrue(Double.isNaN(PrometheusText.parse(Samples.VLLM).sum("vllm:missing")));
    }
}
