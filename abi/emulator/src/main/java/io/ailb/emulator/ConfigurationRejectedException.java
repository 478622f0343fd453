package io.ailb.emulator;

/** {@code proxy_on_configure} (or {@code proxy_on_vm_start}) returned false: Envoy refuses the configuration. */
public final class ConfigurationRejectedException extends RuntimeException {
    ConfigurationRejectedException(String message) {
        super(message);
    }
}
