package io.ailb.image;

import com.fasterxml.jackson.jr.ob.JSON;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Pushes an image over the OCI distribution API: for each blob a {@code HEAD} (skipped when the registry has it),
 * else a {@code POST} that opens an upload and a {@code PUT} of the whole blob with its digest; then a {@code PUT} of
 * the manifest under the tag. On a 401 it answers the registry's challenge once: {@code Basic} with the credentials,
 * or {@code Bearer} with a token for {@code repository:<name>:pull,push} from the challenge's realm.
 */
final class RegistryClient {
    private static final Duration REQUEST_TIMEOUT = Duration.ofMinutes(5);
    private static final Pattern CHALLENGE_PARAMETER = Pattern.compile("(\\w+)=\"([^\"]*)\"");

    private final HttpClient http;
    private final URI base;
    private final Optional<Credentials> credentials;
    private String authorization;

    /** A user name and password (or token) for the registry. */
    record Credentials(String username, String password) {
        String basic() {
            String pair = username + ":" + password;
            return "Basic " + Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8));
        }
    }

    /** The registry refused the credentials, or wants some and none were given. */
    static final class AuthenticationException extends IOException {
        AuthenticationException(String message) {
            super(message);
        }
    }

    /** What a push did: the blobs it uploaded and those the registry already had, by digest. */
    record Pushed(String digest, List<String> uploaded, List<String> present) {}

    /** @param base the registry's root, e.g. {@code https://registry.example.com} */
    RegistryClient(HttpClient http, URI base, Optional<Credentials> credentials) {
        this.http = http;
        this.base = base;
        this.credentials = credentials;
    }

    static HttpClient defaultHttpClient() {
        return HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .followRedirects(HttpClient.Redirect.NORMAL)
                .connectTimeout(Duration.ofSeconds(30))
                .build();
    }

    /** @throws IOException with the request and the registry's answer when a step fails */
    Pushed push(Image image, String repository, String tag) throws IOException {
        List<String> uploaded = new ArrayList<>();
        List<String> present = new ArrayList<>();
        for (Blob blob : image.blobs()) {
            if (has(repository, blob)) {
                present.add(blob.digest());
            } else {
                upload(repository, blob);
                uploaded.add(blob.digest());
            }
        }
        HttpRequest.Builder putManifest = request("/v2/" + repository + "/manifests/" + tag)
                .header("Content-Type", image.manifest().mediaType())
                .PUT(HttpRequest.BodyPublishers.ofByteArray(image.manifest().content()));
        HttpResponse<byte[]> response = expect(send(putManifest, repository), 201, "PUT manifest " + tag);
        Optional<String> stored = response.headers().firstValue("Docker-Content-Digest");
        if (stored.isPresent() && !stored.get().equals(image.digest())) {
            throw new IOException("the registry stored the manifest as " + stored.get() + ", not " + image.digest());
        }
        return new Pushed(image.digest(), uploaded, present);
    }

    private boolean has(String repository, Blob blob) throws IOException {
        HttpRequest.Builder head = request("/v2/" + repository + "/blobs/" + blob.digest())
                .method("HEAD", HttpRequest.BodyPublishers.noBody());
        HttpResponse<byte[]> response = send(head, repository);
        if (response.statusCode() == 404) {
            return false;
        }
        expect(response, 200, "HEAD blob " + blob.digest());
        return true;
    }

    private void upload(String repository, Blob blob) throws IOException {
        HttpRequest.Builder start =
                request("/v2/" + repository + "/blobs/uploads/").POST(HttpRequest.BodyPublishers.noBody());
        HttpResponse<byte[]> started = expect(send(start, repository), 202, "POST upload of " + blob.digest());
        String location = started.headers()
                .firstValue("Location")
                .orElseThrow(() -> new IOException("the registry opened an upload without a Location"));
        String target = base.resolve(location)
                + (location.contains("?") ? "&" : "?")
                + "digest=" + URLEncoder.encode(blob.digest(), StandardCharsets.UTF_8);
        HttpRequest.Builder put = HttpRequest.newBuilder(URI.create(target))
                .timeout(REQUEST_TIMEOUT)
                .header("Content-Type", "application/octet-stream")
                .PUT(HttpRequest.BodyPublishers.ofByteArray(blob.content()));
        expect(send(put, repository), 201, "PUT blob " + blob.digest());
    }

    private HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(base.resolve(path)).timeout(REQUEST_TIMEOUT);
    }

    /** Sends {@code request}, answering one authentication challenge. */
    private HttpResponse<byte[]> send(HttpRequest.Builder request, String repository) throws IOException {
        HttpResponse<byte[]> response = sendAs(request, authorization);
        if (response.statusCode() == 401) {
            authorization = answer(response, repository);
            response = sendAs(request, authorization);
            if (response.statusCode() == 401) {
                throw new AuthenticationException(describe(response)
                        + (credentials.isPresent() ? " with the credentials given" : " without credentials"));
            }
        }
        return response;
    }

    private HttpResponse<byte[]> sendAs(HttpRequest.Builder request, String authorization) throws IOException {
        if (authorization != null) {
            request.setHeader("Authorization", authorization);
        }
        try {
            return http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    private String answer(HttpResponse<byte[]> unauthorized, String repository) throws IOException {
        String challenge = unauthorized.headers().firstValue("WWW-Authenticate").orElse("");
        if (hasScheme(challenge, "Bearer")) {
            return "Bearer " + token(unauthorized, challenge, repository);
        }
        if (hasScheme(challenge, "Basic") && credentials.isPresent()) {
            return credentials.get().basic();
        }
        if (credentials.isEmpty()) {
            throw new AuthenticationException(describe(unauthorized) + ": the registry wants credentials");
        }
        throw new IOException(describe(unauthorized) + ": unsupported challenge " + challenge);
    }

    /** A token from the challenge's realm, asked with the credentials when there are some. */
    private String token(HttpResponse<byte[]> unauthorized, String challenge, String repository) throws IOException {
        Map<String, String> parameters = new LinkedHashMap<>();
        Matcher matcher = CHALLENGE_PARAMETER.matcher(challenge);
        while (matcher.find()) {
            parameters.put(matcher.group(1), matcher.group(2));
        }
        String realm = parameters.get("realm");
        if (realm == null) {
            throw new IOException(describe(unauthorized) + ": Bearer challenge without realm: " + challenge);
        }
        // The challenge of a HEAD names pull only; a push needs both, in one token.
        StringBuilder query = new StringBuilder("scope=")
                .append(URLEncoder.encode("repository:" + repository + ":pull,push", StandardCharsets.UTF_8));
        if (parameters.containsKey("service")) {
            query.append("&service=").append(URLEncoder.encode(parameters.get("service"), StandardCharsets.UTF_8));
        }
        HttpRequest.Builder request = HttpRequest.newBuilder(
                        URI.create(realm + (realm.contains("?") ? "&" : "?") + query))
                .timeout(REQUEST_TIMEOUT)
                .GET();
        credentials.ifPresent(c -> request.header("Authorization", c.basic()));
        HttpResponse<byte[]> response = sendAs(request, null);
        if (response.statusCode() == 401 || response.statusCode() == 403) {
            throw new AuthenticationException("GET token: " + describe(response));
        }
        expect(response, 200, "GET token");
        Map<String, Object> body = JSON.std.mapFrom(response.body());
        Object token = body.containsKey("token") ? body.get("token") : body.get("access_token");
        if (token == null) {
            throw new IOException("the token service at " + realm + " answered no token");
        }
        return token.toString();
    }

    private static boolean hasScheme(String challenge, String scheme) {
        return challenge.regionMatches(true, 0, scheme + " ", 0, scheme.length() + 1);
    }

    private static HttpResponse<byte[]> expect(HttpResponse<byte[]> response, int status, String step)
            throws IOException {
        if (response.statusCode() != status) {
            throw new IOException(step + ": " + describe(response));
        }
        return response;
    }

    private static String describe(HttpResponse<byte[]> response) {
        String body = new String(response.body(), StandardCharsets.UTF_8);
        return response.request().method() + " " + response.request().uri() + " answered " + response.statusCode()
                + (body.isBlank() ? "" : " " + body.strip());
    }
}
