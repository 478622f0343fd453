package io.ailb.abi.codegen;

/** One generated source: its path below the output directory (with {@code /}) and its text. */
public record GeneratedFile(String relativePath, String content) {}
