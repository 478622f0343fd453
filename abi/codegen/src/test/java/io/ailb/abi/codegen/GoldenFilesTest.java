package io.ailb.abi.codegen;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The generator's output for {@code src/test/resources/mini-abi.json} must equal, byte for byte, the files under
 * {@code src/test/resources/golden/guest} and {@code .../golden/host}.
 *
 * <p>After an intended change to the generated code, regenerate the golden files and review their diff:
 * {@code mvn -pl abi/codegen test -Dtest=GoldenFilesTest -Dgolden.update=true}
 */
final class GoldenFilesTest {
    private static final Path MINI_SPEC = Path.of("src/test/resources/mini-abi.json");
    private static final Path GOLDEN = Path.of("src/test/resources/golden");

    @ParameterizedTest
    @EnumSource(Side.class)
    void generatedSourcesEqualTheGoldenFiles(Side side) throws Exception {
        List<GeneratedFile> files = AbiGenerator.generate(SpecReader.read(MINI_SPEC), side);
        Path root = GOLDEN.resolve(side.name().toLowerCase(Locale.ROOT));
        if (Boolean.getBoolean("golden.update")) {
            OutputDirectory.sync(root, side.packagePath(), files);
        }

        Map<String, String> actual = new TreeMap<>();
        for (GeneratedFile file : files) {
            actual.put(file.relativePath(), file.content());
        }
        Map<String, String> expected = readTree(root);
        assertEquals(expected.keySet(), actual.keySet(), "generated file names");
        for (Map.Entry<String, String> entry : expected.entrySet()) {
            assertEquals(entry.getValue(), actual.get(entry.getKey()), entry.getKey());
        }
    }

    @ParameterizedTest
    @EnumSource(Side.class)
    void generationIsDeterministic(Side side) throws Exception {
        AbiSpec spec = SpecReader.read(MINI_SPEC);
        assertEquals(AbiGenerator.generate(spec, side), AbiGenerator.generate(SpecReader.read(MINI_SPEC), side));
    }

    private static Map<String, String> readTree(Path root) throws IOException {
        Map<String, String> files = new TreeMap<>();
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.filter(Files::isRegularFile).toList()) {
                String relative = root.relativize(path).toString().replace('\\', '/');
                files.put(relative, Files.readString(path, StandardCharsets.UTF_8));
            }
        }
        return files;
    }
}
