package io.ailb.abi.codegen;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/** Writes generated files, touching only those whose content changed, and removes stale ones. */
final class OutputDirectory {
    private OutputDirectory() {}

    /**
     * Makes {@code packageDir} below {@code root} hold exactly {@code files}: a file whose bytes are already right is
     * left alone (so incremental builds see no change), other {@code .java} files in that package are deleted.
     *
     * @return how many files were written
     */
    static int sync(Path root, String packageDir, List<GeneratedFile> files) throws IOException {
        Set<Path> wanted = new HashSet<>();
        int written = 0;
        for (GeneratedFile file : files) {
            Path target = root.resolve(file.relativePath());
            wanted.add(target);
            byte[] content = file.content().getBytes(StandardCharsets.UTF_8);
            if (Files.isRegularFile(target) && Arrays.equals(Files.readAllBytes(target), content)) {
                continue;
            }
            Files.createDirectories(target.getParent());
            Files.write(target, content);
            written++;
        }
        Path dir = root.resolve(packageDir);
        if (Files.isDirectory(dir)) {
            try (Stream<Path> entries = Files.list(dir)) {
                for (Path stale : entries.filter(p -> p.toString().endsWith(".java") && !wanted.contains(p))
                        .toList()) {
                    Files.delete(stale);
                }
            }
        }
        return written;
    }
}
