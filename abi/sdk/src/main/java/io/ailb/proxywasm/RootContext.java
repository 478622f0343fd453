package io.ailb.proxywasm;

/**
 * The plugin (root) context: one per plugin configuration in the VM; it outlives the streams it creates.
 *
 * <pre>
 *   VM ── RootContext (id r, parent 0) ── onVmStart, onConfigure, onTick, Redis/HTTP replies of its streams
 *              ├── HttpContext (id s1, parent r) ── request/response callbacks, onLog, onDone, onDelete
 *              └── HttpContext (id s2, parent r)
 * </pre>
 *
 * Every method has a default, so a plugin overrides only what it needs. Exceptions thrown here are caught by the
 * SDK, logged at ERROR and answered with the fail-safe value ({@link #onConfigure} → rejected).
 */
public abstract class RootContext {
    private final int contextId;

    protected RootContext(int contextId) {
        this.contextId = contextId;
    }

    public final int contextId() {
        return contextId;
    }

    /** The VM started; {@code vmConfiguration} is the VM configuration (often empty). */
    public boolean onVmStart(byte[] vmConfiguration) {
        return true;
    }

    /** A (new) plugin configuration; return false to reject it. */
    public boolean onConfigure(byte[] pluginConfiguration) {
        return true;
    }

    /** Timer tick, after {@link Clock#setTickPeriodMillis}. */
    public void onTick() {}

    /** A shared queue this context registered has data. */
    public void onQueueReady(int queueId) {}

    /** A new HTTP stream of this plugin; the default passes every stream through untouched. */
    public HttpContext newHttpContext(int contextId) {
        return new PassThrough(contextId);
    }

    /** The host wants to shut the context down; return true when done. */
    public boolean onDone() {
        return true;
    }

    public void onDelete() {}

    private static final class PassThrough extends HttpContext {
        PassThrough(int contextId) {
            super(contextId);
        }
    }
}
