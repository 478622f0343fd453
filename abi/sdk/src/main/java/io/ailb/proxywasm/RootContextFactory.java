package io.ailb.proxywasm;

/** Creates the plugin's root context for each root context id the host announces. */
@FunctionalInterface
public interface RootContextFactory {
    RootContext create(int contextId);
}
