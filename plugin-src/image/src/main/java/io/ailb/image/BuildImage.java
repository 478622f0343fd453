package io.ailb.image;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Writes the plugin's image: {@code --out <dir>} becomes an OCI image layout and {@code <dir>.tar} the same files as
 * a tarball. Run by exec-maven-plugin in plugin-src/image. Exit status 0 on success, 1 when a file cannot be read or
 * written, 2 on a bad command line.
 */
public final class BuildImage {
    static final String USAGE = "usage: BuildImage --wasm <plugin.wasm> --spec <spec.yaml> --readme <README.md>"
            + " --tag <tag> --out <layout dir>";

    private BuildImage() {}

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            err.println("ERROR: " + e.getMessage());
            err.println(USAGE);
            return 2;
        }
        try {
            Image image = PluginImage.build(
                    Files.readAllBytes(options.wasm()),
                    Files.readAllBytes(options.spec()),
                    Files.readAllBytes(options.readme()));
            OciLayout.writeDirectory(image, options.tag(), options.out());
            Path tarball = tarballOf(options.out());
            Files.write(tarball, OciLayout.tarball(image, options.tag()));
            out.println(summary(tarball, options.tag(), image));
            return 0;
        } catch (IOException | RuntimeException e) {
            err.println("ERROR: " + e);
            return 1;
        }
    }

    /** {@code dir}'s tarball: the same path with {@code .tar} appended. */
    static Path tarballOf(Path layout) {
        return layout.resolveSibling(layout.getFileName() + ".tar");
    }

    static String summary(Path tarball, String tag, Image image) {
        StringBuilder summary = new StringBuilder(
                String.format(Locale.ROOT, "image: %s %s (tag %s), layers:", tarball, image.digest(), tag));
        for (Blob layer : image.layers()) {
            summary.append(String.format(
                    Locale.ROOT, " %s %d bytes,", layer.annotations().get(Blob.TITLE), layer.size()));
        }
        summary.setLength(summary.length() - 1);
        return summary.toString();
    }

    private record Options(Path wasm, Path spec, Path readme, String tag, Path out) {
        static Options parse(String[] args) {
            Path wasm = null;
            Path spec = null;
            Path readme = null;
            String tag = null;
            Path out = null;
            for (int i = 0; i < args.length; i += 2) {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("missing value after " + args[i]);
                }
                String value = args[i + 1];
                switch (args[i]) {
                    case "--wasm" -> wasm = Path.of(value);
                    case "--spec" -> spec = Path.of(value);
                    case "--readme" -> readme = Path.of(value);
                    case "--tag" -> tag = value;
                    case "--out" -> out = Path.of(value).toAbsolutePath();
                    default -> throw new IllegalArgumentException("unknown option " + args[i]);
                }
            }
            if (wasm == null || spec == null || readme == null || tag == null || out == null) {
                throw new IllegalArgumentException("--wasm, --spec, --readme, --tag and --out are required");
            }
            return new Options(wasm, spec, readme, tag, out);
        }
    }
}
