package io.ailb.sim.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ailb.sim.backend.BackendConfig;
import java.util.List;
import org.junit.jupiter.api.Test;

class ServiceLayoutTest {
    private final ServiceLayout layout = ServiceLayout.of(List.of(3, 2, 1), List.of(1.0, 0.5, 0.25));

    @Test
    void servicesHoldConsecutiveBackendsUnderTheirClusterNames() {
        assertEquals(6, layout.totalBackends());
        assertEquals(
                List.of(0, 0, 0, 1, 1, 2),
                List.of(0, 1, 2, 3, 4, 5).stream().map(layout::serviceOf).toList());
        assertEquals(
                List.of("outbound|80||svc-a.dns", "outbound|80||svc-b.dns", "outbound|80||svc-c.dns"),
                layout.clusters());
        assertEquals(1, layout.indexOfCluster("outbound|80||svc-b.dns"));
        assertEquals(-1, layout.indexOfCluster("outbound|80||llm.sim"));
    }

    @Test
    void aSlowerServiceTakesProportionallyLongerPerTokenAndPerStep() {
        List<BackendConfig> configs = layout.backendConfigs(BackendConfig.DEFAULT);
        assertEquals(6, configs.size());
        assertEquals(BackendConfig.DEFAULT, configs.get(0));
        BackendConfig half = configs.get(3);
        assertEquals(125.0, half.prefillUsPerToken(), 1e-9);
        assertEquals(24.0, half.itlMs(), 1e-9);
        assertEquals(2 * BackendConfig.DEFAULT.stepFixedMs(), half.stepFixedMs(), 1e-9);
        assertEquals(
                4 * BackendConfig.DEFAULT.loneTtftMs(1024, 0), configs.get(5).loneTtftMs(1024, 0), 1e-9);
    }

    @Test
    void capacityPercentsFollowBackendsTimesSpeedAndSumToExactlyOneHundred() {
        // capacities 3, 1, 0.25 of 4.25: 70.6 %, 23.5 %, 5.9 %
        assertEquals(List.of(71, 23, 6), layout.capacityPercents());
        ServiceLayout thirds = ServiceLayout.of(List.of(1, 1, 1), List.of(1.0, 1.0, 1.0));
        assertEquals(
                100,
                thirds.capacityPercents().stream().mapToInt(Integer::intValue).sum());
        ServiceLayout tiny = ServiceLayout.of(List.of(10, 1), List.of(1.0, 0.01));
        assertEquals(List.of(99, 1), tiny.capacityPercents(), "every service keeps at least one slot");
    }

    @Test
    void mismatchedListsAndEmptyServicesAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> ServiceLayout.of(List.of(1, 1), List.of(1.0)));
        assertThrows(IllegalArgumentException.class, () -> ServiceLayout.of(List.of(0), List.of(1.0)));
        assertThrows(IllegalArgumentException.class, () -> ServiceLayout.of(List.of(1), List.of(0.0)));
    }

    @Test
    void clusterConfigsNameEveryServiceAndTheRedisOnlyForTheGlobalCount() {
        ServiceLayout two = ServiceLayout.of(List.of(1, 1), List.of(1.0, 0.25));
        assertEquals(
                "{\"lb_type\":\"cluster\",\"lb_policy\":\"cluster_metrics\",\"lb_config\":{\"mode\":\"LeastBusy\","
                        + "\"service_list\":[\"outbound|80||svc-a.dns\",\"outbound|80||svc-b.dns\"]}}",
                ClusterConfigs.configFor("LeastBusy", two, "redis.static", 6379));
        assertEquals(
                "{\"lb_type\":\"cluster\",\"lb_policy\":\"cluster_metrics\",\"lb_config\":{\"mode\":\"AdaptiveScore\","
                        + "\"service_list\":[\"outbound|80||svc-a.dns\",\"outbound|80||svc-b.dns\"],"
                        + "\"global_inflight_enabled\":true,\"serviceFQDN\":\"redis.static\",\"servicePort\":6379}}",
                ClusterConfigs.configFor(ClusterConfigs.ADAPTIVE_GLOBAL, two, "redis.static", 6379));
        assertEquals(
                "{\"lb_type\":\"cluster\",\"lb_policy\":\"cluster_hash\",\"lb_config\":{\"clusters\":["
                        + "{\"cluster\":\"outbound|80||svc-a.dns\",\"weight\":80},"
                        + "{\"cluster\":\"outbound|80||svc-b.dns\",\"weight\":20}]}}",
                ClusterConfigs.configFor(ClusterConfigs.CLUSTER_HASH, two, "redis.static", 6379));
        assertThrows(
                IllegalArgumentException.class, () -> ClusterConfigs.configFor("Fastest", two, "redis.static", 6379));
    }
}
