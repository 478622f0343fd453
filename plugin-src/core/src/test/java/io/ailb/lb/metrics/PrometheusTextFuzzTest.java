package io.ailb.lb.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.code_intelligence.jazzer.mutation.annotation.NotNull;
import java.util.List;

/**
 * Any text as a backend's metrics (host info, or a scraped {@code /metrics}; docs/reliability.md, "Fuzzing"): the
 * lenient parser returns what it could read and never throws; a family filter keeps exactly the samples of the full
 * parse it names, so the signals the policies read do not depend on the filter.
 */
final class PrometheusTextFuzzTest {

    @FuzzTest(maxDuration = "60s")
    void anyTextParsesWithoutThrowing(@NotNull String text) {
        MetricFamilies all = PrometheusText.parse(text);
        MetricFamilies engine = PrometheusText.parse(text, EngineMetrics.FAMILIES);
        for (String family : EngineMetrics.FAMILIES) {
            assertEquals(all.has(family), engine.has(family), family);
            if (all.has(family)) {
                assertTrue(text.contains(family), family + " is in the text");
                List<MetricFamilies.Sample> full = all.samples(family);
                List<MetricFamilies.Sample> filtered = engine.samples(family);
                assertEquals(full.size(), filtered.size(), family);
                for (int i = 0; i < full.size(); i++) {
                    assertEquals(full.get(i).labels(), filtered.get(i).labels(), family);
                    assertEquals(
                            Double.doubleToLongBits(full.get(i).value()),
                            Double.doubleToLongBits(filtered.get(i).value()),
                            family);
                }
            }
        }
        EngineMetrics fromAll = EngineMetrics.of(all);
        EngineMetrics parsed = EngineMetrics.parse(text, null);
        assertEquals(Double.doubleToLongBits(fromAll.running()), Double.doubleToLongBits(parsed.running()));
        assertEquals(Double.doubleToLongBits(fromAll.waiting()), Double.doubleToLongBits(parsed.waiting()));
    }
}
