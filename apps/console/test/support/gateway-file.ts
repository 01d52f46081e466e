/**
 * The gateway file of the console's tests: two server options over the simulator, one vendor.
 * `gpt-failover` tries `sim-down` first (nothing listens there: a connect error), then answers from
 * `sim-openai`; its later targets `sim-spare` and `sim-idle` are never reached, so only the
 * upstream-health reports a test writes speak for them.
 */
export function consoleGatewayYaml(simulatorUrl: string): string {
  return `
upstreams:
  - { name: sim-openai, shape: openai, base_url: "${simulatorUrl}/v1", secret_env: CONSOLE_TEST_SIMULATOR_KEY }
  - { name: sim-anthropic, shape: anthropic, base_url: "${simulatorUrl}", secret_env: CONSOLE_TEST_SIMULATOR_KEY }
  - { name: sim-down, shape: openai, base_url: "http://127.0.0.1:9/v1", secret_env: CONSOLE_TEST_SIMULATOR_KEY }
  - { name: sim-spare, shape: openai, base_url: "${simulatorUrl}/v1", secret_env: CONSOLE_TEST_SIMULATOR_KEY }
  - { name: sim-idle, shape: openai, base_url: "${simulatorUrl}/v1", secret_env: CONSOLE_TEST_SIMULATOR_KEY }
models:
  - name: gpt-test
    prices: { input: "0.15", output: "0.60", cached_input: "0.075" }
    targets: [ { upstream: sim-openai, model: gpt-upstream } ]
  - name: claude-test
    prices: { input: "3.00", output: "15.00", cached_input: "0.30", web_search: "0.01", tiers: [ { above_input_tokens: 200000, input: "6.00", output: "22.50" } ] }
    targets: [ { upstream: sim-anthropic, model: claude-upstream } ]
  - name: gpt-failover
    prices: { input: "0.15", output: "0.60" }
    targets:
      - { upstream: sim-down, model: gpt-upstream, priority: 0 }
      - { upstream: sim-openai, model: gpt-upstream, priority: 1 }
      - { upstream: sim-spare, model: gpt-upstream, priority: 2 }
      - { upstream: sim-idle, model: gpt-upstream, priority: 3 }
  - name: image-test
    prices: { image: "0.04" }
    targets: [ { upstream: sim-openai, model: image-upstream } ]
server_options:
  - { name: standard, description: "Everyday models", models: [gpt-test, claude-test, image-test, gpt-failover], rate_limits: { rpm: 600, tpm: 200000 } }
  - { name: premium, description: "Premium at twice the price", models: [gpt-test, claude-test], price_multiplier: "2" }
vendors:
  - { name: console-vendor, server_options: [standard, premium] }
`;
}
