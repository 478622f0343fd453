package io.ailb.image;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * A POSIX ustar archive that depends on nothing but its entries: modification time 0, owner and group 0 without
 * names, mode 0644 for files and 0755 for directories, entries in the order given.
 */
final class Tar {
    static final int FILE_MODE = 0644;
    static final int DIRECTORY_MODE = 0755;
    private static final int BLOCK = 512;
    private static final int NAME_LENGTH = 100;

    private Tar() {}

    /** A file ({@code content} set) or a directory ({@code content} null, name ending in {@code /}). */
    record Entry(String name, byte[] content) {
        static Entry file(String name, byte[] content) {
            return new Entry(name, content);
        }

        static Entry directory(String name) {
            return new Entry(name.endsWith("/") ? name : name + "/", null);
        }

        boolean isDirectory() {
            return content == null;
        }

        long size() {
            return isDirectory() ? 0 : content.length;
        }
    }

    /** @throws IllegalArgumentException for a name that is not ASCII or longer than ustar's 100 bytes */
    static byte[] archive(List<Entry> entries) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Entry entry : entries) {
            out.writeBytes(header(entry));
            if (!entry.isDirectory()) {
                out.writeBytes(entry.content());
                out.writeBytes(new byte[padding(entry.content().length)]);
            }
        }
        // The end of an archive: two zero blocks.
        out.writeBytes(new byte[2 * BLOCK]);
        return out.toByteArray();
    }

    private static byte[] header(Entry entry) {
        byte[] name = entry.name().getBytes(StandardCharsets.US_ASCII);
        if (name.length > NAME_LENGTH
                || !entry.name().equals(new String(name, StandardCharsets.US_ASCII))
                || entry.name().isEmpty()) {
            throw new IllegalArgumentException("tar entry name must be 1..100 ASCII characters: " + entry.name());
        }
        byte[] header = new byte[BLOCK];
        System.arraycopy(name, 0, header, 0, name.length);
        octal(header, 100, 8, entry.isDirectory() ? DIRECTORY_MODE : FILE_MODE);
        octal(header, 108, 8, 0); // uid
        octal(header, 116, 8, 0); // gid
        octal(header, 124, 12, entry.size());
        octal(header, 136, 12, 0); // mtime
        header[156] = (byte) (entry.isDirectory() ? '5' : '0');
        ascii(header, 257, "ustar\0" + "00");
        octal(header, 329, 8, 0); // devmajor
        octal(header, 337, 8, 0); // devminor
        // The checksum is computed with its own field read as eight spaces.
        Arrays.fill(header, 148, 156, (byte) ' ');
        long checksum = 0;
        for (byte b : header) {
            checksum += b & 0xff;
        }
        octal(header, 148, 7, checksum);
        header[155] = ' ';
        return header;
    }

    /** {@code value} as zero-padded octal digits filling {@code length - 1} bytes, then a NUL. */
    private static void octal(byte[] header, int offset, int length, long value) {
        String digits = Long.toOctalString(value);
        if (digits.length() > length - 1) {
            throw new IllegalArgumentException(value + " does not fit a tar field of " + length + " bytes");
        }
        ascii(header, offset, "0".repeat(length - 1 - digits.length()) + digits + "\0");
    }

    private static void ascii(byte[] header, int offset, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(bytes, 0, header, offset, bytes.length);
    }

    private static int padding(int size) {
        return (BLOCK - size % BLOCK) % BLOCK;
    }
}
