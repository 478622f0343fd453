package io.ailb.lb.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class MetricsStoreTest {
    private final MetricsStore store = new MetricsStore(5000, 3000, 3, null);

    @Test
    void aHostSeenInARequestIsScrapedAtTheNextTick() {
        store.saw("c", "10.0.0.1:8000", 0);
        MetricsStore.Due due = store.due(10).get(0);
        assertEquals("10.0.0.1:8000", due.host());
        assertEquals("c", due.clusterName());
    }

    @Test
    void aHostIsNotScrapedAgainBeforeTheRefreshInterval() {
        store.saw("c", "h", 0);
        store.due(0);
        store.onResult("h", 200, Samples.vllm(1, 0.1), 100);
        assertTrue(store.due(4999).isEmpty());
        assertEquals(1, store.due(5000).size());
    }

    @Test
    void aScrapeStillInFlightIsNotRepeated() {
        store.saw("c", "h", 0);
        store.due(0);
        assertTrue(store.due(6000).isEmpty());
    }

    @Test
    void aSuccessfulScrapeProvidesMetrics() {
        store.saw("c", "h", 0);
        store.due(0);
        store.onResult("h", 200, Samples.vllm(7, 0.1), 10);
        assertEquals(7.0, store.metrics("h").waiting());
    }

    @Test
    void aHostIsSkippedAfterTheThresholdOfConsecutiveFailures() {
        store.saw("c", "h", 0);
        store.due(0);
        store.onResult("h", 200, Samples.vllm(7, 0.1), 10);
        for (int i = 1; i <= 3; i++) {
            store.due(i * 5000L);
            store.onResult("h", 503, "", i * 5000L + 1);
        }
        assertNull(store.metrics("h"));
        assertTrue(store.unhealthy("h"));
    }

    @Test
    void failuresBelowTheThresholdKeepTheLastMetrics() {
        store.saw("c", "h", 0);
        store.due(0);
        store.onResult("h", 200, Samples.vllm(7, 0.1), 10);
        store.due(5000);
        store.onResult("h", 0, null, 5001);
        assertNotNull(store.metrics("h"));
    }

    @Test
    void aSuccessResetsTheFailureCount() {
        store.saw("c", "h", 0);
        for (int i = 0; i < 2; i++) {
            store.due(i * 5000L);
            store.onResult("h", 500, null, i * 5000L + 1);
        }
        store.due(10_000);
        store.onResult("h", 200, Samples.vllm(1, 0.1), 10_001);
        store.due(15_000);
        store.onResult("h", 500, null, 15_001);
        assertNotNull(store.metrics("h"));
    }

    @Test
    void aReplyWithoutEngineMetricsCountsAsAFailure() {
        MetricsStore strict = new MetricsStore(5000, 3000, 1, null);
        strict.saw("c", "h", 0);
        strict.due(0);
        strict.onResult("h", 200, "<html></html>", 1);
        assertTrue(strict.unhealthy("h"));
    }

    @Test
    void aScrapeWhoseResultNeverComesCountsAsAFailedScrape() {
        MetricsStore strict = new MetricsStore(5000, 3000, 1, null);
        strict.saw("c", "h", 0);
        strict.due(0);
        strict.due(8001);
        assertTrue(strict.unhealthy("h"));
    }

    @Test
    void aHostNoRequestListsAnyMoreIsForgotten() {
        store.saw("c", "h", 0);
        store.due(0);
        store.onResult("h", 200, Samples.vllm(1, 0.1), 1);
        assertTrue(store.due(60_001).isEmpty());
        assertNull(store.metrics("h"));
    }
}
