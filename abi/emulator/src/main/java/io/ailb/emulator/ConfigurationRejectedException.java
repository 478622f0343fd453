package io.ailb.emulator;

import java.util.Optional;

/** {@code proxy_on_configure} (or {@code proxy_on_vm_start}) returned false: Envoy refuses the configuration. */
public final class ConfigurationRejectedException extends RuntimeException {
    private final String reason;

    /**
     * @param call the export that returned false
     * @param reason the guest's own explanation: the most severe line it logged during that call, or null
     * @param logTail the guest's last log lines
     */
    ConfigurationRejectedException(String call, String reason, String logTail) {
        super(call + " returned false"
                + (reason == null ? " (the guest logged nothing during the call)" : ": " + reason) + logTail);
        this.reason = reason;
    }

    /** The line the guest logged to say why it refused (the most severe, the last of those), if it logged any. */
    public Optional<String> reason() {
        return Optional.ofNullable(reason);
    }
}
