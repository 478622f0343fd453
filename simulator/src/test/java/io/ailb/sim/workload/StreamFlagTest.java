package io.ailb.sim.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.sim.model.SimRequest;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StreamFlagTest {
    @Test
    void theStreamMemberIsReadWhereverItIsAndHoweverSpaced() {
        assertTrue(StreamFlag.streams("{\"model\":\"sim\",\"stream\":true,\"messages\":[]}"));
        assertTrue(StreamFlag.streams("{\"model\": \"m\", \"stream\" :  true, \"messages\": []}"));
        assertFalse(StreamFlag.streams("{\"model\":\"sim\",\"stream\":false}"));
        assertFalse(StreamFlag.streams("{\"model\":\"sim\",\"messages\":[]}"), "absent: OpenAI's default, no stream");
        assertTrue(
                StreamFlag.streams("{\"messages\":[{\"content\":\"say \\\"stream\\\" twice\"}],\"stream\":true}"),
                "a quoted word in a message is not the member");
    }

    @Test
    void anUnstreamedBodyDiffersOnlyInItsStreamMember() {
        String body = "{\"model\": \"m\", \"stream\": true, \"messages\": [{\"content\": \"true\"}]}";
        assertEquals(
                "{\"model\": \"m\", \"stream\": false, \"messages\": [{\"content\": \"true\"}]}",
                StreamFlag.unstreamed(body));
        String plain = "{\"model\":\"m\",\"messages\":[]}";
        assertEquals(plain, StreamFlag.unstreamed(plain), "nothing to turn off");
    }

    @Test
    void theUnstreamedShareIsDrawnPerRequestTheSameWayEveryTime() {
        List<SimRequest> requests = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            requests.add(new SimRequest(i, i, "s" + i, 10, 1, 16, List.of((long) i), "{\"stream\":true}"));
        }
        Workload all = Workload.openLoop("w", requests, null);
        Workload half = all.withUnstreamedShare(0.5, 7);
        int unstreamed = 0;
        for (SimRequest r : requests) {
            boolean streams =
                    StreamFlag.streams(half.materialize(r, r.arrivalMs()).body());
            assertEquals(
                    streams,
                    StreamFlag.streams(half.materialize(r, r.arrivalMs() + 5).body()),
                    "stable");
            unstreamed += streams ? 0 : 1;
            assertTrue(StreamFlag.streams(all.materialize(r, r.arrivalMs()).body()), "share 0 changes nothing");
            assertFalse(StreamFlag.streams(
                    all.withUnstreamedShare(1, 7).materialize(r, 0).body()));
        }
        assertTrue(unstreamed > 900 && unstreamed < 1100, unstreamed + " of 2000");
        assertThrows(IllegalArgumentException.class, () -> all.withUnstreamedShare(1.5, 7));
    }
}
