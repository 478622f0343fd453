package io.ailb.abi.codegen;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Embeds text files as Java String constants, for code compiled to Wasm (TeaVM cannot load resources at run time).
 *
 * <p>{@code java io.ailb.abi.codegen.EmbedText --in DIR --glob '*.lua' --out DIR --class pkg.Name} writes
 * {@code pkg/Name.java} with one constant per matching file of DIR (not recursive), named after the file without its
 * extension in upper snake case ({@code select.lua} → {@code SELECT}). The output is rewritten only when it changes.
 *
 * <p>{@code --class-per-package Name} instead of {@code --class} walks DIR recursively and writes one package-private
 * class {@code Name} per directory holding matching files, in the package named after that directory below DIR, so
 * texts and the code using them share a package. {@code --include-directive '--#include'} assembles every file with
 * {@link TextIncludes} (include paths relative to the including file, DIR the root); files whose name starts with
 * {@code _} are then partials: they are only included, never embedded themselves. An include error stops the build
 * with a message naming the file and line. {@code --strip-line-comments '--'} then leaves out every line that holds
 * only such a comment or nothing, and the indentation of the others: the module stores its strings in UTF-16, so
 * comments would double their size in it (the files themselves keep them, for reading).
 */
public final class EmbedText {
    /** A constant's UTF-8 form must fit the class file's 65535-byte limit. */
    private static final int MAX_CONSTANT_BYTES = 65535;

    private static final String PARTIAL_PREFIX = "_";

    /** One file to embed: its name, its (assembled) text and the files assembled into it. */
    record Embedded(String fileName, String text, List<String> included) {}

    private EmbedText() {}

    public static void main(String[] argv) throws IOException {
        try {
            for (Path written : run(argv)) {
                System.out.println("EmbedText: " + written);
            }
        } catch (IllegalArgumentException e) {
            System.err.println("EmbedText: error: " + e.getMessage());
            System.exit(1);
        }
    }

    /** Runs the command line {@code argv}; returns the Java files it generated (written or already up to date). */
    static List<Path> run(String[] argv) throws IOException {
        String in = null;
        String glob = null;
        String out = null;
        String className = null;
        String perPackage = null;
        String directive = null;
        String commentMarker = null;
        for (int i = 0; i < argv.length; i++) {
            String flag = argv[i];
            if (i + 1 >= argv.length) {
                throw usage("missing value after " + flag);
            }
            String value = argv[++i];
            switch (flag) {
                case "--in":
                    in = value;
                    break;
                case "--glob":
                    glob = value;
                    break;
                case "--out":
                    out = value;
                    break;
                case "--class":
                    className = value;
                    break;
                case "--class-per-package":
                    perPackage = value;
                    break;
                case "--include-directive":
                    directive = value;
                    break;
                case "--strip-line-comments":
                    commentMarker = value;
                    break;
                default:
                    throw usage("unknown option " + flag);
            }
        }
        if (in == null || glob == null || out == null || (className == null) == (perPackage == null)) {
            throw usage("--in, --glob, --out and one of --class, --class-per-package are required");
        }
        if (perPackage != null) {
            return writeTree(Paths.get(in), glob, Paths.get(out), perPackage, directive, commentMarker);
        }
        return List.of(writeFlat(Paths.get(in), glob, Paths.get(out), className, directive, commentMarker));
    }

    /** Generates the class and returns the path of the Java file. */
    public static Path write(Path inDir, String glob, Path outDir, String className) throws IOException {
        return write(inDir, glob, outDir, className, null);
    }

    /**
     * Generates the public class {@code className} from the matching files of {@code inDir}, assembling includes when
     * {@code includeDirective} is not null; returns the path of the Java file.
     */
    public static Path write(Path inDir, String glob, Path outDir, String className, String includeDirective)
            throws IOException {
        return writeFlat(inDir, glob, outDir, className, includeDirective, null);
    }

    private static Path writeFlat(
            Path inDir, String glob, Path outDir, String className, String includeDirective, String commentMarker)
            throws IOException {
        List<Embedded> texts = new ArrayList<>();
        for (Path file : matching(inDir, glob, includeDirective != null)) {
            texts.add(embedded(inDir, file, includeDirective, commentMarker));
        }
        return writeClass(outDir, className, true, texts);
    }

    /**
     * One package-private class {@code simpleName} per directory below {@code root} that holds matching files (see the
     * class comment); returns the paths of the Java files, by package.
     */
    public static List<Path> writePerPackage(
            Path root, String glob, Path outDir, String simpleName, String includeDirective) throws IOException {
        return writeTree(root, glob, outDir, simpleName, includeDirective, null);
    }

    private static List<Path> writeTree(
            Path root, String glob, Path outDir, String simpleName, String includeDirective, String commentMarker)
            throws IOException {
        Map<Path, List<Path>> byDirectory = new TreeMap<>();
        try (Stream<Path> dirs = Files.walk(root)) {
            for (Path dir : dirs.filter(Files::isDirectory).toList()) {
                List<Path> files = matching(dir, glob, includeDirective != null);
                if (!files.isEmpty()) {
                    byDirectory.put(dir, files);
                }
            }
        }
        List<Path> written = new ArrayList<>();
        for (Map.Entry<Path, List<Path>> entry : byDirectory.entrySet()) {
            String pkg = slashed(root.relativize(entry.getKey())).replace('/', '.');
            if (pkg.isEmpty()) {
                throw new IllegalArgumentException(
                        root + ": files to embed must be in a package directory, not at" + " the root");
            }
            List<Embedded> texts = new ArrayList<>();
            for (Path file : entry.getValue()) {
                texts.add(embedded(root, file, includeDirective, commentMarker));
            }
            written.add(writeClass(outDir, pkg + "." + simpleName, false, texts));
        }
        return written;
    }

    /** {@code file} assembled when {@code includeDirective} is set, then stripped when {@code commentMarker} is. */
    private static Embedded embedded(Path root, Path file, String includeDirective, String commentMarker)
            throws IOException {
        String name = file.getFileName().toString();
        String text;
        List<String> included;
        if (includeDirective == null) {
            text = new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
            included = List.of();
        } else {
            TextIncludes.Assembled assembled = new TextIncludes(includeDirective, TextIncludes.directory(root))
                    .assemble(slashed(root.relativize(file)));
            text = assembled.text();
            included = assembled.included();
        }
        return new Embedded(name, commentMarker == null ? text : withoutLineComments(text, commentMarker), included);
    }

    private static Path writeClass(Path outDir, String className, boolean isPublic, List<Embedded> texts)
            throws IOException {
        String source = generate(className, isPublic, texts);
        Path target = outDir.resolve(className.replace('.', '/') + ".java");
        byte[] bytes = source.getBytes(StandardCharsets.UTF_8);
        if (!Files.exists(target) || !Arrays.equals(Files.readAllBytes(target), bytes)) {
            Files.createDirectories(target.getParent());
            Files.write(target, bytes);
        }
        return target;
    }

    /** The Java source for {@code className} embedding {@code files}. */
    public static String generate(String className, List<Path> files) throws IOException {
        List<Embedded> texts = new ArrayList<>();
        for (Path file : files) {
            texts.add(new Embedded(
                    file.getFileName().toString(),
                    new String(Files.readAllBytes(file), StandardCharsets.UTF_8),
                    List.of()));
        }
        return generate(className, true, texts);
    }

    static String generate(String className, boolean isPublic, List<Embedded> texts) {
        int dot = className.lastIndexOf('.');
        String pkg = dot < 0 ? "" : className.substring(0, dot);
        String simpleName = className.substring(dot + 1);
        StringBuilder java = new StringBuilder();
        if (!pkg.isEmpty()) {
            java.append("package ").append(pkg).append(";\n\n");
        }
        java.append("/** Generated by io.ailb.abi.codegen.EmbedText; do not edit. */\n");
        java.append(isPublic ? "public final class " : "final class ")
                .append(simpleName)
                .append(" {\n");
        java.append("    private ").append(simpleName).append("() {\n    }\n");
        List<String> names = new ArrayList<>();
        for (Embedded file : texts) {
            String name = constantName(file.fileName());
            if (names.contains(name)) {
                throw new IllegalArgumentException("two files map to the constant " + name);
            }
            names.add(name);
            if (file.text().getBytes(StandardCharsets.UTF_8).length > MAX_CONSTANT_BYTES) {
                throw new IllegalArgumentException(file.fileName() + " is larger than a Java string constant can hold");
            }
            java.append("\n    /** ").append(file.fileName());
            if (!file.included().isEmpty()) {
                java.append(", including ").append(String.join(", ", file.included()));
            }
            java.append(" */\n");
            java.append("    public static final String ").append(name).append(" =");
            appendLiteral(java, file.text());
            java.append(";\n");
        }
        java.append("}\n");
        return java.toString();
    }

    /** {@code text} without its blank lines, its lines holding only a comment, and indentation. */
    public static String withoutLineComments(String text, String marker) {
        StringBuilder kept = new StringBuilder(text.length());
        for (String line : text.split("\n", -1)) {
            String code = line.strip();
            if (!code.isEmpty() && !code.startsWith(marker)) {
                kept.append(code).append('\n');
            }
        }
        return kept.toString();
    }

    /** {@code prefix-cache.v2.lua} → {@code PREFIX_CACHE_V2}. */
    static String constantName(String fileName) {
        int dot = fileName.lastIndexOf('.');
        String stem = dot > 0 ? fileName.substring(0, dot) : fileName;
        StringBuilder name = new StringBuilder();
        for (int i = 0; i < stem.length(); i++) {
            char c = stem.charAt(i);
            boolean word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
            if (i > 0 && Character.isUpperCase(c) && Character.isLowerCase(stem.charAt(i - 1))) {
                name.append('_');
            }
            name.append(word ? Character.toUpperCase(c) : '_');
        }
        if (name.length() == 0 || Character.isDigit(name.charAt(0))) {
            name.insert(0, '_');
        }
        return name.toString();
    }

    /** One literal per source line joined with {@code +}, so the generated file stays readable. */
    private static void appendLiteral(StringBuilder java, String text) {
        if (text.isEmpty()) {
            java.append(" \"\"");
            return;
        }
        int start = 0;
        boolean first = true;
        while (start < text.length()) {
            int newline = text.indexOf('\n', start);
            int end = newline < 0 ? text.length() : newline + 1;
            java.append(first ? "\n            " : "\n            + ");
            first = false;
            java.append('"');
            escape(java, text, start, end);
            java.append('"');
            start = end;
        }
    }

    private static void escape(StringBuilder java, String text, int from, int to) {
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"':
                    java.append("\\\"");
                    break;
                case '\\':
                    java.append("\\\\");
                    break;
                case '\n':
                    java.append("\\n");
                    break;
                case '\r':
                    java.append("\\r");
                    break;
                case '\t':
                    java.append("\\t");
                    break;
                default:
                    if (c < 0x20 || c == 0x7F) {
                        java.append(String.format("\\u%04x", (int) c));
                    } else {
                        java.append(c);
                    }
                    break;
            }
        }
    }

    /** Matching regular files of {@code dir} (not recursive) by name; partials left out when {@code skipPartials}. */
    private static List<Path> matching(Path dir, String glob, boolean skipPartials) {
        PathMatcher matcher = dir.getFileSystem().getPathMatcher("glob:" + glob);
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                if (Files.isRegularFile(entry)
                        && matcher.matches(entry.getFileName())
                        && !(skipPartials && name.startsWith(PARTIAL_PREFIX))) {
                    files.add(entry);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + dir, e);
        }
        files.sort(
                (a, b) -> a.getFileName().toString().compareTo(b.getFileName().toString()));
        return files;
    }

    private static String slashed(Path relative) {
        return relative.toString().replace(relative.getFileSystem().getSeparator(), "/");
    }

    private static IllegalArgumentException usage(String problem) {
        return new IllegalArgumentException(problem
                + "\nusage: EmbedText --in DIR --glob PATTERN --out DIR (--class fully.qualified.Name"
                + " | --class-per-package Name) [--include-directive DIRECTIVE]");
    }
}
