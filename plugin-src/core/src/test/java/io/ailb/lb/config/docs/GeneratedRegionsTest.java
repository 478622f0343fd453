package io.ailb.lb.config.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;
import org.junit.jupiter.api.Test;

class GeneratedRegionsTest {
    private static final String MARKDOWN = "intro, see `BEGIN GENERATED` and END GENERATED in prose\n"
            + "<!-- BEGIN GENERATED: table a -->\nold a\n<!-- END GENERATED -->\nmiddle\n"
            + "<!-- BEGIN GENERATED: table b -->\nold b\n<!-- END GENERATED -->\nend";

    @Test
    void regionsAreReadBetweenCommentMarkersOnly() {
        assertEquals(Map.of("table a", "old a\n", "table b", "old b\n"), GeneratedRegions.read(MARKDOWN));
    }

    @Test
    void replacingKeepsMarkersOtherRegionsAndTheLastLine() {
        assertEquals(
                "intro, see `BEGIN GENERATED` and END GENERATED in prose\n"
                        + "<!-- BEGIN GENERATED: table a -->\nnew 1\nnew 2\n<!-- END GENERATED -->\nmiddle\n"
                        + "<!-- BEGIN GENERATED: table b -->\nold b\n<!-- END GENERATED -->\nend",
                GeneratedRegions.replace(MARKDOWN, Map.of("table a", "new 1\nnew 2\n")));
    }

    @Test
    void aYamlMarkerMayCarryARemarkAfterItsId() {
        String yaml = "a: 1\n  # BEGIN GENERATED: schema (do not edit)\n  b: 2\n  # END GENERATED\n";
        assertEquals(Map.of("schema", "  b: 2\n"), GeneratedRegions.read(yaml));
        assertEquals(
                "a: 1\n  # BEGIN GENERATED: schema (do not edit)\n  # END GENERATED\n",
                GeneratedRegions.replace(yaml, Map.of("schema", "")));
    }

    @Test
    void anUnterminatedRegionIsRefused() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> GeneratedRegions.read("# BEGIN GENERATED: x\nbody\n"));
        assertEquals("region \"x\" has no END GENERATED line", e.getMessage());
    }
}
