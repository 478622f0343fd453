package io.ailb.scenarios;

/** The shared global_least_request scenario on the shell's classes, on the testkit's fake host. */
class GlobalLeastRequestOnJvmTest extends GlobalLeastRequestSharedScenario {
    @Override
    SharedGateway start(String pluginConfig) {
        return TestkitGateway.start(pluginConfig);
    }
}
