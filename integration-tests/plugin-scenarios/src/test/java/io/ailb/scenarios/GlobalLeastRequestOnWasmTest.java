package io.ailb.scenarios;

/** The shared global_least_request scenario on the built {@code .wasm}, in the emulator. */
class GlobalLeastRequestOnWasmTest extends GlobalLeastRequestSharedScenario {
    @Override
    SharedGateway start(String pluginConfig) {
        return EmulatorGateway.start(pluginConfig);
    }
}
