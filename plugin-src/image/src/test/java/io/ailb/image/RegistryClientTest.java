package io.ailb.image;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Pushes over real HTTP to {@link TestRegistry}, a registry in this JVM. */
class RegistryClientTest {
    private static final String REPOSITORY = "plugins/ai-load-balancer";
    private static final Image IMAGE =
            PluginImage.build(PluginImageTest.WASM, PluginImageTest.SPEC, PluginImageTest.README);

    @Test
    void uploadsEachMissingBlobThenPutsTheManifestAndTheRegistryServesTheImage() throws Exception {
        try (TestRegistry registry = new TestRegistry()) {
            RegistryClient.Pushed pushed = client(registry, Optional.empty()).push(IMAGE, REPOSITORY, "0.1.0");

            List<String> expected = new ArrayList<>();
            int upload = 0;
            for (Blob blob : IMAGE.blobs()) {
                upload++;
                expected.add("HEAD /v2/" + REPOSITORY + "/blobs/" + blob.digest());
                expected.add("POST /v2/" + REPOSITORY + "/blobs/uploads/");
                expected.add("PUT /v2/" + REPOSITORY + "/blobs/uploads/" + upload + "?digest="
                        + URLEncoder.encode(blob.digest(), StandardCharsets.UTF_8));
            }
            expected.add("PUT /v2/" + REPOSITORY + "/manifests/0.1.0");
            assertEquals(expected, registry.requests());

            assertEquals(IMAGE.digest(), pushed.digest());
            assertEquals(IMAGE.blobs().stream().map(Blob::digest).toList(), pushed.uploaded());
            assertEquals(List.of(), pushed.present());
            assertArrayEquals(IMAGE.manifest().content(), registry.manifest(REPOSITORY, "0.1.0"));
            assertArrayEquals(IMAGE.manifest().content(), registry.manifest(REPOSITORY, IMAGE.digest()));
            for (Blob blob : IMAGE.blobs()) {
                assertArrayEquals(blob.content(), registry.blob(REPOSITORY, blob.digest()), blob.digest());
            }
        }
    }

    @Test
    void aSecondPushUploadsNothingAndPutsTheManifestUnderTheNewTag() throws Exception {
        try (TestRegistry registry = new TestRegistry()) {
            client(registry, Optional.empty()).push(IMAGE, REPOSITORY, "0.1.0");
            int before = registry.requests().size();

            RegistryClient.Pushed again = client(registry, Optional.empty()).push(IMAGE, REPOSITORY, "stable");

            List<String> expected = new ArrayList<>();
            IMAGE.blobs().forEach(blob -> expected.add("HEAD /v2/" + REPOSITORY + "/blobs/" + blob.digest()));
            expected.add("PUT /v2/" + REPOSITORY + "/manifests/stable");
            assertEquals(
                    expected,
                    registry.requests().subList(before, registry.requests().size()));
            assertEquals(List.of(), again.uploaded());
            assertArrayEquals(IMAGE.manifest().content(), registry.manifest(REPOSITORY, "stable"));
        }
    }

    @Test
    void aTokenRegistryGetsOnePullPushTokenForTheCredentials() throws Exception {
        try (TestRegistry registry = new TestRegistry().requireToken("ci", "s3cret")) {
            RegistryClient client = client(registry, Optional.of(new RegistryClient.Credentials("ci", "s3cret")));

            client.push(IMAGE, REPOSITORY, "0.1.0");

            List<String> requests = registry.requests();
            String scope = URLEncoder.encode("repository:" + REPOSITORY + ":pull,push", StandardCharsets.UTF_8);
            assertEquals(
                    List.of(
                            "HEAD /v2/" + REPOSITORY + "/blobs/"
                                    + IMAGE.config().digest(),
                            "GET /token?scope=" + scope + "&service=test-registry",
                            "HEAD /v2/" + REPOSITORY + "/blobs/"
                                    + IMAGE.config().digest()),
                    requests.subList(0, 3),
                    "the HEAD's pull-only challenge is answered with one token for pull and push");
            assertEquals(
                    1, requests.stream().filter(r -> r.startsWith("GET /token")).count(), requests.toString());
            assertArrayEquals(IMAGE.manifest().content(), registry.manifest(REPOSITORY, "0.1.0"));
        }
    }

    @Test
    void aBasicRegistryGetsTheCredentialsAfterItsFirstChallenge() throws Exception {
        try (TestRegistry registry = new TestRegistry().requireBasic("ci", "s3cret")) {
            RegistryClient client = client(registry, Optional.of(new RegistryClient.Credentials("ci", "s3cret")));

            client.push(IMAGE, REPOSITORY, "0.1.0");

            String head = "HEAD /v2/" + REPOSITORY + "/blobs/" + IMAGE.config().digest();
            assertEquals(List.of(head, head), registry.requests().subList(0, 2));
            assertEquals(
                    IMAGE.blobs().size() * 3 + 1 + 1,
                    registry.requests().size(),
                    "HEAD, POST, PUT per blob, the manifest, and only the first HEAD challenged");
            assertArrayEquals(IMAGE.manifest().content(), registry.manifest(REPOSITORY, "0.1.0"));
        }
    }

    @Test
    void wrongCredentialsFailWithTheTokenServicesAnswer() throws Exception {
        try (TestRegistry registry = new TestRegistry().requireToken("ci", "s3cret")) {
            RegistryClient client = client(registry, Optional.of(new RegistryClient.Credentials("ci", "wrong")));

            IOException failed = assertThrows(
                    RegistryClient.AuthenticationException.class, () -> client.push(IMAGE, REPOSITORY, "0.1.0"));

            assertTrue(failed.getMessage().contains("GET token"), failed.getMessage());
            assertTrue(failed.getMessage().contains("401"), failed.getMessage());
            assertTrue(failed.getMessage().contains("incorrect username or password"), failed.getMessage());
            assertEquals(null, registry.manifest(REPOSITORY, "0.1.0"));
        }
    }

    private static RegistryClient client(TestRegistry registry, Optional<RegistryClient.Credentials> credentials) {
        return new RegistryClient(RegistryClient.defaultHttpClient(), registry.uri(), credentials);
    }
}
