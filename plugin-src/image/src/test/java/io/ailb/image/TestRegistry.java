package io.ailb.image;

import com.fasterxml.jackson.jr.ob.JSON;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A registry in this JVM speaking the part of the OCI distribution API a push uses: {@code HEAD}/{@code GET} of
 * blobs, {@code POST} + {@code PUT} uploads (the digest checked against the bytes), {@code PUT}/{@code GET} of
 * manifests (refused while a blob they name is missing). With {@link #requireToken} it authenticates like Docker
 * Hub: every {@code /v2/} request needs a Bearer token, the challenge names a pull-only scope, the token service at
 * {@code /token} wants Basic credentials and grants the scope asked for, and writes need {@code push} in it. With
 * {@link #requireBasic} every request needs the credentials themselves.
 */
final class TestRegistry implements AutoCloseable {
    private final HttpServer server;
    private final List<String> requests = new ArrayList<>();
    private final Map<String, byte[]> blobs = new HashMap<>();
    private final Map<String, byte[]> manifests = new HashMap<>();
    private final Map<String, String> tokens = new HashMap<>();
    private String username;
    private String password;
    private boolean basic;
    private int uploads;

    TestRegistry() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/v2/", exchange -> handle(exchange, this::registry));
        server.createContext("/token", exchange -> handle(exchange, this::token));
        server.start();
    }

    TestRegistry requireToken(String username, String password) {
        this.username = username;
        this.password = password;
        return this;
    }

    /** Every {@code /v2/} request needs these credentials as Basic authentication. */
    TestRegistry requireBasic(String username, String password) {
        basic = true;
        return requireToken(username, password);
    }

    URI uri() {
        return URI.create("http://" + authority());
    }

    String authority() {
        return "127.0.0.1:" + server.getAddress().getPort();
    }

    /** Every request so far as {@code METHOD path[?query]}, in order. */
    synchronized List<String> requests() {
        return List.copyOf(requests);
    }

    synchronized byte[] manifest(String repository, String reference) {
        return manifests.get(repository + "@" + reference);
    }

    synchronized byte[] blob(String repository, String digest) {
        return blobs.get(repository + "@" + digest);
    }

    @Override
    public void close() {
        server.stop(0);
    }

    private interface Handler {
        void handle(HttpExchange exchange, String path) throws IOException;
    }

    private void handle(HttpExchange exchange, Handler handler) throws IOException {
        try (exchange) {
            URI uri = exchange.getRequestURI();
            synchronized (this) {
                requests.add(exchange.getRequestMethod() + " " + uri.getRawPath()
                        + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery()));
                handler.handle(exchange, uri.getRawPath());
            }
        } catch (RuntimeException e) {
            exchange.sendResponseHeaders(500, -1);
        }
    }

    private void registry(HttpExchange exchange, String path) throws IOException {
        String method = exchange.getRequestMethod();
        String rest = path.substring("/v2/".length());
        int blobsAt = rest.indexOf("/blobs/");
        int manifestsAt = rest.indexOf("/manifests/");
        int at = blobsAt >= 0 ? blobsAt : manifestsAt;
        if (at < 0) {
            reply(exchange, 404, "{\"errors\":[{\"code\":\"NAME_UNKNOWN\"}]}");
            return;
        }
        String repository = rest.substring(0, at);
        boolean write = method.equals("POST") || method.equals("PUT");
        if (!authorized(exchange, repository, write)) {
            return;
        }
        if (blobsAt >= 0) {
            blobs(exchange, method, repository, rest.substring(blobsAt + "/blobs/".length()));
        } else {
            manifests(exchange, method, repository, rest.substring(manifestsAt + "/manifests/".length()));
        }
    }

    private void blobs(HttpExchange exchange, String method, String repository, String rest) throws IOException {
        if (method.equals("POST") && rest.equals("uploads/")) {
            exchange.getResponseHeaders().set("Location", "/v2/" + repository + "/blobs/uploads/" + (++uploads));
            exchange.sendResponseHeaders(202, -1);
        } else if (method.equals("PUT") && rest.startsWith("uploads/")) {
            String digest = query(exchange).get("digest");
            byte[] content = exchange.getRequestBody().readAllBytes();
            if (digest == null || !digest.equals(Blob.digestOf(content))) {
                reply(exchange, 400, "{\"errors\":[{\"code\":\"DIGEST_INVALID\"}]}");
                return;
            }
            blobs.put(repository + "@" + digest, content);
            exchange.getResponseHeaders().set("Docker-Content-Digest", digest);
            exchange.sendResponseHeaders(201, -1);
        } else if (method.equals("HEAD") || method.equals("GET")) {
            byte[] content = blobs.get(repository + "@" + rest);
            if (content == null) {
                exchange.sendResponseHeaders(404, -1);
            } else if (method.equals("HEAD")) {
                exchange.sendResponseHeaders(200, -1);
            } else {
                exchange.sendResponseHeaders(200, content.length);
                exchange.getResponseBody().write(content);
            }
        } else {
            exchange.sendResponseHeaders(405, -1);
        }
    }

    private void manifests(HttpExchange exchange, String method, String repository, String reference)
            throws IOException {
        if (method.equals("PUT")) {
            byte[] content = exchange.getRequestBody().readAllBytes();
            Map<String, Object> manifest = JSON.std.mapFrom(content);
            if (!String.valueOf(manifest.get("mediaType"))
                    .equals(exchange.getRequestHeaders().getFirst("Content-Type"))) {
                reply(exchange, 400, "{\"errors\":[{\"code\":\"MANIFEST_INVALID\"}]}");
                return;
            }
            List<Object> descriptors = new ArrayList<>((List<?>) manifest.get("layers"));
            descriptors.add(manifest.get("config"));
            for (Object descriptor : descriptors) {
                if (!blobs.containsKey(repository + "@" + ((Map<?, ?>) descriptor).get("digest"))) {
                    reply(exchange, 400, "{\"errors\":[{\"code\":\"MANIFEST_BLOB_UNKNOWN\"}]}");
                    return;
                }
            }
            String digest = Blob.digestOf(content);
            manifests.put(repository + "@" + reference, content);
            manifests.put(repository + "@" + digest, content);
            exchange.getResponseHeaders().set("Docker-Content-Digest", digest);
            exchange.sendResponseHeaders(201, -1);
        } else if (method.equals("GET")) {
            byte[] content = manifests.get(repository + "@" + reference);
            if (content == null) {
                exchange.sendResponseHeaders(404, -1);
                return;
            }
            exchange.getResponseHeaders().set("Content-Type", Image.MANIFEST_MEDIA_TYPE);
            exchange.getResponseHeaders().set("Docker-Content-Digest", Blob.digestOf(content));
            exchange.sendResponseHeaders(200, content.length);
            exchange.getResponseBody().write(content);
        } else {
            exchange.sendResponseHeaders(405, -1);
        }
    }

    /** Sends the challenge and returns false unless the request carries a token good for it. */
    private boolean authorized(HttpExchange exchange, String repository, boolean write) throws IOException {
        if (username == null) {
            return true;
        }
        String header = exchange.getRequestHeaders().getFirst("Authorization");
        if (basic) {
            if (basicCredentials().equals(header)) {
                return true;
            }
            exchange.getResponseHeaders().set("WWW-Authenticate", "Basic realm=\"test-registry\"");
            reply(exchange, 401, "{\"errors\":[{\"code\":\"UNAUTHORIZED\"}]}");
            return false;
        }
        String scope = header == null || !header.startsWith("Bearer ") ? null : tokens.get(header.substring(7));
        String granted = "repository:" + repository + ":";
        if (scope != null
                && scope.startsWith(granted)
                && List.of(scope.substring(granted.length()).split(",")).contains(write ? "push" : "pull")) {
            return true;
        }
        String needed = granted + (write ? "pull,push" : "pull");
        exchange.getResponseHeaders()
                .set(
                        "WWW-Authenticate",
                        "Bearer realm=\"http://" + authority() + "/token\",service=\"test-registry\",scope=\"" + needed
                                + "\"");
        reply(exchange, 401, "{\"errors\":[{\"code\":\"UNAUTHORIZED\"}]}");
        return false;
    }

    private void token(HttpExchange exchange, String path) throws IOException {
        if (!basicCredentials().equals(exchange.getRequestHeaders().getFirst("Authorization"))) {
            reply(exchange, 401, "{\"details\":\"incorrect username or password\"}");
            return;
        }
        String token = "t" + (tokens.size() + 1);
        tokens.put(token, query(exchange).get("scope"));
        reply(exchange, 200, "{\"token\":\"" + token + "\"}");
    }

    private String basicCredentials() {
        return "Basic "
                + Base64.getEncoder().encodeToString((username + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    private static Map<String, String> query(HttpExchange exchange) {
        Map<String, String> parameters = new HashMap<>();
        String query = exchange.getRequestURI().getRawQuery();
        if (query != null) {
            for (String pair : query.split("&")) {
                int equals = pair.indexOf('=');
                parameters.put(
                        pair.substring(0, equals),
                        URLDecoder.decode(pair.substring(equals + 1), StandardCharsets.UTF_8));
            }
        }
        return parameters;
    }

    private static void reply(HttpExchange exchange, int status, String json) {
        try {
            byte[] body = json.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(status, body.length);
            exchange.getResponseBody().write(body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
