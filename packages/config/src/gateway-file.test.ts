import { describe, expect, it } from "vitest";
import { ConfigError } from "./env.ts";
import { expandEnv, parseGatewayFile } from "./gateway-file.ts";

const valid = `
upstreams:
  - { name: up-a, shape: openai, base_url: "http://127.0.0.1:1/v1", secret_env: UP_A_KEY }
models:
  - name: m1
    prices: { input: "0.15", output: "0.6" }
    targets: [ { upstream: up-a, model: m1-upstream } ]
server_options:
  - { name: standard, models: [m1], rate_limits: { rpm: 10 } }
vendors:
  - { name: v1, server_options: [standard] }
`;

function errorOf(text: string): string {
  try {
    parseGatewayFile(text, "test.yaml");
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("expected the file to be refused");
}

describe("parseGatewayFile", () => {
  it("parses a valid file with defaults filled in", () => {
    const file = parseGatewayFile(valid);
    expect(file.upstreams[0]).toMatchObject({ name: "up-a", shape: "openai", timeouts: { connect_ms: 2000, first_byte_ms: 60000 }, capabilities: { responses: true } });
    expect(file.server_options[0]!.rate_limits).toEqual({ rpm: 10, tpm: null });
    expect(file.models[0]!.prices).toMatchObject({ input: "0.15", output: "0.6", image: "0" });
  });

  it("a server option's price override sets only the fields it names", () => {
    const file = parseGatewayFile(valid.replace("rate_limits: { rpm: 10 } }", 'rate_limits: { rpm: 10 }, prices: { m1: { output: "0.3" } } }'));
    expect(file.server_options[0]!.prices).toEqual({ m1: { output: "0.3" } });
  });

  it("names the path of a wrong field", () => {
    expect(errorOf(valid.replace("shape: openai", "shape: gemini"))).toMatch(/test\.yaml: .*\n\s+upstreams\[0\]\.shape:/);
    expect(errorOf(valid.replace('input: "0.15"', "input: 0.15"))).toMatch(/models\[0\]\.prices\.input/);
    expect(errorOf(valid.replace("rate_limits: { rpm: 10 }", "rate_limits: { rpm: 10, tpm: 10000000000 }"))).toMatch(/server_options\[0\]\.rate_limits\.tpm/);
  });

  it("takes every price field and tiers, bounded so no price overflows or loses a digit", () => {
    const tiered = valid.replace('prices: { input: "0.15", output: "0.6" }', 'prices: { input: "3", output: "15", cache_write_1h: "6", request: "0.0001", web_search: "0.01", tiers: [ { above_input_tokens: 200000, input: "6" }, { above_input_tokens: 500000, output: "30" } ] }');
    expect(parseGatewayFile(tiered).models[0]!.prices).toMatchObject({ cache_write_1h: "6", request: "0.0001", web_search: "0.01", tiers: [{ above_input_tokens: 200000, input: "6" }, { above_input_tokens: 500000, output: "30" }] });
    expect(errorOf(tiered.replace("above_input_tokens: 500000", "above_input_tokens: 200000"))).toMatch(/models\[0\]\.prices\.tiers\[1\]\.above_input_tokens: tiers must be sorted/);
    expect(errorOf(valid.replace('input: "0.15"', 'input: "0.1234567"'))).toMatch(/models\[0\]\.prices\.input/);
    expect(errorOf(valid.replace('input: "0.15"', 'input: "12345678"'))).toMatch(/models\[0\]\.prices\.input/);
    expect(errorOf(valid.replace('output: "0.6"', 'output: "0.6", web_search: "0.0000000000001"'))).toMatch(/models\[0\]\.prices\.web_search/);
    expect(errorOf(valid.replace("rate_limits: { rpm: 10 } }", 'rate_limits: { rpm: 10 }, price_multiplier: "1.00001" }'))).toMatch(/server_options\[0\]\.price_multiplier/);
    const override = parseGatewayFile(valid.replace("rate_limits: { rpm: 10 } }", 'rate_limits: { rpm: 10 }, prices: { m1: { cache_write: "0.2", tiers: [ { above_input_tokens: 1000, input: "0.3" } ] } } }'));
    expect(override.server_options[0]!.prices).toEqual({ m1: { cache_write: "0.2", tiers: [{ above_input_tokens: 1000, input: "0.3" }] } });
  });

  it("checks references between sections", () => {
    expect(errorOf(valid.replace("upstream: up-a", "upstream: up-z"))).toMatch(/models\[0\]\.targets\[0\]\.upstream: unknown upstream "up-z"/);
    expect(errorOf(valid.replace("models: [m1]", "models: [m2]"))).toMatch(/server_options\[0\]\.models\[0\]: unknown model "m2"/);
    expect(errorOf(valid.replace("server_options: [standard]", "server_options: [gold]"))).toMatch(/vendors\[0\]\.server_options\[0\]/);
  });

  it("refuses unknown keys (a typo is never silently ignored) and secrets in the file", () => {
    expect(errorOf(valid.replace("secret_env: UP_A_KEY", "secret_env: UP_A_KEY, api_key: sk-123"))).toMatch(/upstreams\[0\].*api_key/s);
  });

  it("refuses duplicate names and bad YAML", () => {
    expect(errorOf(valid.replace("vendors:\n  - { name: v1, server_options: [standard] }", "vendors:\n  - { name: v1 }\n  - { name: v1 }"))).toMatch(/vendors\[1\]\.name: duplicate/);
    expect(errorOf("upstreams: [")).toMatch(/not valid YAML/);
  });
});

describe("expandEnv", () => {
  it("replaces ${NAME} and ${NAME:-fallback} and refuses an unset name without fallback", () => {
    expect(expandEnv("a ${X} b ${Y:-dflt}", { X: "1" })).toBe("a 1 b dflt");
    expect(() => expandEnv("${MISSING}", {})).toThrow(/MISSING is not set/);
  });
});
