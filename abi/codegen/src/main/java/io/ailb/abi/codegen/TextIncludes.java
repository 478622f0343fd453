package io.ailb.abi.codegen;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Assembles a text file from its include lines: a line {@code <directive> "relative/path"} (the directive at the
 * start of the line, e.g. {@code --#include "_leases.lua"}) is replaced by the named file, itself assembled. Paths are
 * relative to the including file, with {@code /}, and must stay inside the source root.
 *
 * <p>Each file is included at most once per assembled text, so shared definitions are never duplicated; an include
 * cycle, a repeated include, a malformed include line or a missing file is an {@link IllegalArgumentException} naming
 * the including file and line. The result depends only on the files' bytes: the same sources always assemble to the
 * same text.
 */
public final class TextIncludes {
    /** Reads files by their {@code /}-separated path below a root. */
    @FunctionalInterface
    public interface Source {
        /** The file's text, or null when there is no such file. */
        String read(String path) throws IOException;
    }

    private final String directive;
    private final Source source;

    public TextIncludes(String directive, Source source) {
        if (directive == null || directive.isBlank()) {
            throw new IllegalArgumentException("the include directive must not be empty");
        }
        this.directive = directive;
        this.source = source;
    }

    /** Files below {@code root}. */
    public static Source directory(Path root) {
        return path -> {
            Path file = root.resolve(path);
            return Files.isRegularFile(file) ? Files.readString(file, StandardCharsets.UTF_8) : null;
        };
    }

    /** Resources of {@code loader} (the root is the class path root). */
    public static Source classpath(ClassLoader loader) {
        return path -> {
            try (InputStream in = loader.getResourceAsStream(path)) {
                return in == null ? null : new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
        };
    }

    /** True when {@code line} is an include line (well formed or not). */
    public boolean isInclude(String line) {
        return line.startsWith(directive);
    }

    /** The assembled text of {@code path} and the files it included, in include order. */
    public record Assembled(String text, List<String> included) {}

    /** Assembles {@code path}; fails when it does not exist. */
    public Assembled assemble(String path) throws IOException {
        String text = source.read(path);
        if (text == null) {
            throw new IllegalArgumentException(path + ": no such file");
        }
        StringBuilder out = new StringBuilder(text.length());
        List<String> included = new ArrayList<>();
        Deque<String> stack = new ArrayDeque<>();
        stack.push(path);
        expand(path, text, out, stack, new HashSet<>(Set.of(path)), included);
        return new Assembled(out.toString(), List.copyOf(included));
    }

    /** Include depth is bounded by the number of distinct files, since a file is never included twice. */
    private void expand(
            String path, String text, StringBuilder out, Deque<String> stack, Set<String> seen, List<String> included)
            throws IOException {
        int start = 0;
        int lineNumber = 0;
        while (start < text.length()) {
            int newline = text.indexOf('\n', start);
            int end = newline < 0 ? text.length() : newline + 1;
            String line = text.substring(start, end);
            lineNumber++;
            start = end;
            if (!isInclude(line)) {
                out.append(line);
                continue;
            }
            String where = path + ":" + lineNumber + ": ";
            String target = resolve(where, path, includedName(where, line));
            if (stack.contains(target)) {
                List<String> chain = new ArrayList<>(stack);
                Collections.reverse(chain);
                chain.add(target);
                throw new IllegalArgumentException(where + "include cycle: " + String.join(" -> ", chain));
            }
            if (!seen.add(target)) {
                throw new IllegalArgumentException(
                        where + target + " is already included (a file is included at most" + " once)");
            }
            String body = source.read(target);
            if (body == null) {
                throw new IllegalArgumentException(where + "cannot include " + target + ": no such file");
            }
            included.add(target);
            stack.push(target);
            expand(target, body, out, stack, seen, included);
            stack.pop();
            if (!body.isEmpty() && !body.endsWith("\n")) {
                out.append('\n');
            }
        }
    }

    /** The quoted name of an include line. */
    private String includedName(String where, String line) {
        String rest = line.substring(directive.length()).strip();
        if (rest.length() < 3 || rest.charAt(0) != '"' || rest.indexOf('"', 1) != rest.length() - 1) {
            throw new IllegalArgumentException(
                    where + "malformed include, expected " + directive + " \"relative/path\": " + line.strip());
        }
        return rest.substring(1, rest.length() - 1);
    }

    /** {@code name} relative to the directory of {@code from}, normalised; it must not leave the root. */
    private static String resolve(String where, String from, String name) {
        if (name.startsWith("/") || name.contains("\\")) {
            throw new IllegalArgumentException(where + "include paths are relative, with /: " + name);
        }
        int slash = from.lastIndexOf('/');
        Deque<String> parts = new ArrayDeque<>();
        if (slash >= 0) {
            for (String part : from.substring(0, slash).split("/")) {
                parts.addLast(part);
            }
        }
        for (String part : name.split("/")) {
            if (part.equals("..")) {
                if (parts.isEmpty()) {
                    throw new IllegalArgumentException(where + "include leaves the source root: " + name);
                }
                parts.removeLast();
            } else if (!part.isEmpty() && !part.equals(".")) {
                parts.addLast(part);
            }
        }
        return String.join("/", parts);
    }
}
