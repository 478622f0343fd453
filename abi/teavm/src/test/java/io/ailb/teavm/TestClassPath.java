package io.ailb.teavm;

import java.io.File;
import java.util.ArrayList;
import java.util.List;

/** The test JVM's classpath, which {@link BuildWasm#run} compiles guests against (classlib and this plugin included). */
final class TestClassPath {
    private TestClassPath() {}

    /** Surefire runs tests from a manifest-only jar; the real classpath is in this property. */
    static List<File> files() {
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<File> files = new ArrayList<>();
        for (String entry : classPath.split(File.pathSeparator)) {
            files.add(new File(entry));
        }
        return files;
    }
}
