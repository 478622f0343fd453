package io.ailb.image;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * Pushes the image of an OCI layout directory (as {@link BuildImage} writes it) to a registry:
 * {@code --layout <dir> --to host[:port]/repository[:tag] [--plain-http true]}. Credentials, when the registry
 * wants some, come from the environment: {@code AILB_REGISTRY_USERNAME} and {@code AILB_REGISTRY_PASSWORD} (a
 * password or a token). Exit status 0 on success, 1 when the push fails, 2 on a bad command line.
 */
public final class PushImage {
    static final String USAGE =
            "usage: PushImage --layout <oci layout dir> --to <host[:port]/repository[:tag]> [--plain-http true|false]";
    static final String USERNAME_VARIABLE = "AILB_REGISTRY_USERNAME";
    static final String PASSWORD_VARIABLE = "AILB_REGISTRY_PASSWORD";

    private PushImage() {}

    public static void main(String[] args) {
        System.exit(run(args, System.getenv(), System.out, System.err));
    }

    static int run(String[] args, Map<String, String> environment, PrintStream out, PrintStream err) {
        Path layout = null;
        ImageReference target = null;
        boolean plainHttp = false;
        Optional<RegistryClient.Credentials> credentials;
        try {
            for (int i = 0; i < args.length; i += 2) {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("missing value after " + args[i]);
                }
                String value = args[i + 1];
                switch (args[i]) {
                    case "--layout" -> layout = Path.of(value);
                    case "--to" -> target = ImageReference.parse(value);
                    case "--plain-http" -> plainHttp = Boolean.parseBoolean(value);
                    default -> throw new IllegalArgumentException("unknown option " + args[i]);
                }
            }
            if (layout == null || target == null) {
                throw new IllegalArgumentException("--layout and --to are required");
            }
            credentials = credentials(environment);
        } catch (IllegalArgumentException e) {
            err.println("ERROR: " + e.getMessage());
            err.println(USAGE);
            return 2;
        }
        try {
            Image image = OciLayout.read(layout);
            URI registry = URI.create((plainHttp ? "http://" : "https://") + target.registry());
            RegistryClient client = new RegistryClient(RegistryClient.defaultHttpClient(), registry, credentials);
            RegistryClient.Pushed pushed = client.push(image, target.repository(), target.tag());
            out.println("pushed " + target + " " + pushed.digest() + ": "
                    + pushed.uploaded().size() + " blobs uploaded, "
                    + pushed.present().size() + " already there");
            out.println("Higress url: oci://" + target);
            return 0;
        } catch (RegistryClient.AuthenticationException e) {
            err.println("ERROR: push to " + target + " failed: " + e.getMessage() + "; "
                    + (credentials.isEmpty() ? "set " : "check ") + USERNAME_VARIABLE + " and " + PASSWORD_VARIABLE);
            return 1;
        } catch (IOException | RuntimeException e) {
            err.println("ERROR: push to " + target + " failed: " + e.getMessage());
            return 1;
        }
    }

    static Optional<RegistryClient.Credentials> credentials(Map<String, String> environment) {
        String username = environment.getOrDefault(USERNAME_VARIABLE, "");
        String password = environment.getOrDefault(PASSWORD_VARIABLE, "");
        if (username.isEmpty() != password.isEmpty()) {
            throw new IllegalArgumentException(
                    "set both " + USERNAME_VARIABLE + " and " + PASSWORD_VARIABLE + ", or neither");
        }
        return username.isEmpty() ? Optional.empty() : Optional.of(new RegistryClient.Credentials(username, password));
    }
}
