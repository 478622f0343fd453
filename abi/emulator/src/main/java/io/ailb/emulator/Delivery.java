package io.ailb.emulator;

/** When Redis replies and HTTP-call responses reach the guest. */
public enum Delivery {
    /** After the guest callback that caused them returns, in order (what a test usually wants). */
    AUTOMATIC,
    /** Only when the test calls {@link PluginVm#deliverPending()}, so it can act (e.g. reset a stream) in between. */
    MANUAL
}
