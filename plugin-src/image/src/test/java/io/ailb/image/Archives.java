package io.ailb.image;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;

/** Reads archives with the JDK's gzip and commons-compress's tar: implementations other than the ones that wrote them. */
final class Archives {
    private Archives() {}

    /** A tar entry as a reader sees it. */
    record Entry(String name, boolean directory, int mode, long uid, long gid, long mtimeMillis, byte[] content) {}

    static byte[] gunzip(byte[] gzip) {
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(gzip))) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<Entry> untar(byte[] tar) {
        List<Entry> entries = new ArrayList<>();
        try (TarArchiveInputStream in = new TarArchiveInputStream(new ByteArrayInputStream(tar))) {
            for (TarArchiveEntry entry = in.getNextEntry(); entry != null; entry = in.getNextEntry()) {
                entries.add(new Entry(
                        entry.getName(),
                        entry.isDirectory(),
                        entry.getMode(),
                        entry.getLongUserId(),
                        entry.getLongGroupId(),
                        entry.getModTime().getTime(),
                        in.readAllBytes()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return entries;
    }
}
