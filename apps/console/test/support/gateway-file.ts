/** The gateway file of the console's tests: two server options over the simulator, one vendor. */
export function consoleGatewayYaml(simulatorUrl: string): string {
  return `
upstreams:
  - { name: sim-openai, shape: openai, base_url: "${simulatorUrl}/v1", secret_env: CONSOLE_TEST_SIMULATOR_KEY }
  - { name: sim-anthropic, shape: anthropic, base_url: "${simulatorUrl}", secret_env: CONSOLE_TEST_SIMULATOR_KEY }
models:
  - name: gpt-test
    prices: { input: "0.15", output: "0.60", cached_input: "0.075" }
    targets: [ { upstream: sim-openai, model: gpt-upstream } ]
  - name: claude-test
    prices: { input: "3.00", output: "15.00", cached_input: "0.30", web_search: "0.01", tiers: [ { above_input_tokens: 200000, input: "6.00", output: "22.50" } ] }
    targets: [ { upstream: sim-anthropic, model: claude-upstream } ]
  - name: image-test
    prices: { image: "0.04" }
    targets: [ { upstream: sim-openai, model: image-upstream } ]
server_options:
  - { name: standard, description: "Everyday models", models: [gpt-test, claude-test, image-test], rate_limits: { rpm: 600, tpm: 200000 } }
  - { name: premium, description: "Premium at twice the price", models: [gpt-test, claude-test], price_multiplier: "2" }
vendors:
  - { name: console-vendor, server_options: [standard, premium] }
`;
}
