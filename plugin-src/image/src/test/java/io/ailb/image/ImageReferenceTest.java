package io.ailb.image;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ImageReferenceTest {

    @ParameterizedTest
    @CsvSource({
        "localhost:5000/ai-load-balancer:0.1.0, localhost:5000, ai-load-balancer, 0.1.0",
        "registry.example.com/plugins/ai-load-balancer:1.0, registry.example.com, plugins/ai-load-balancer, 1.0",
        "oci://registry.example.com/plugins/ai-load-balancer:1.0, registry.example.com, plugins/ai-load-balancer, 1.0",
        "registry.example.com:8443/a/b/c, registry.example.com:8443, a/b/c, latest",
        "localhost/ailb, localhost, ailb, latest",
        "someone/ai-load-balancer:v1, registry-1.docker.io, someone/ai-load-balancer, v1",
        "ai-load-balancer, registry-1.docker.io, library/ai-load-balancer, latest"
    })
    void readsRegistryRepositoryAndTag(String reference, String registry, String repository, String tag) {
        ImageReference parsed = ImageReference.parse(reference);

        assertEquals(new ImageReference(registry, repository, tag), parsed);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "registry.example.com/plugins/ai-load-balancer@sha256:0123",
                "registry.example.com/Plugins/x:1",
                "registry.example.com/x:bad/tag!",
                "registry.example.com/x:",
                "registry.example.com/"
            })
    void refusesWhatCannotBePushedTo(String reference) {
        assertThrows(IllegalArgumentException.class, () -> ImageReference.parse(reference));
    }
}
