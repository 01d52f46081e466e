import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { errorOf } from "./test-helpers.ts";
import { expandEnv, FAMILY_CAPABILITIES, parseGatewayFile } from "./gateway-file.ts";

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
    expect(errorOf(valid.replace("shape: openai", "shape: cohere"))).toMatch(/test\.yaml: .*\n\s+upstreams\[0\]\.shape:/);
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

  it("takes aliases, drop_params, drop_betas, strict_params, and target weight/priority defaulting to the upstream's", () => {
    const file = parseGatewayFile(valid);
    expect(file.upstreams[0]).toMatchObject({ priority: 0, weight: 1, drop_betas: ["oauth-2025-04-20"] });
    expect(file.models[0]).toMatchObject({ aliases: [], drop_params: [], targets: [{ upstream: "up-a", model: "m1-upstream" }] });
    expect(file.models[0]!.targets[0]!.weight).toBeUndefined();
    expect(file.server_options[0]!.strict_params).toBe(false);
    const full = parseGatewayFile(
      valid
        .replace("secret_env: UP_A_KEY }", "secret_env: UP_A_KEY, priority: 2, weight: 5, drop_betas: [] }")
        .replace("    prices: {", "    aliases: [m1-latest, \"m1-2025*\"]\n    drop_params: [temperature, top_p]\n    prices: {")
        .replace("model: m1-upstream }", "model: m1-upstream, weight: 3, priority: 1 }")
        .replace("rate_limits: { rpm: 10 } }", "rate_limits: { rpm: 10 }, strict_params: true }"),
    );
    expect(full.upstreams[0]).toMatchObject({ priority: 2, weight: 5, drop_betas: [] });
    expect(full.models[0]).toMatchObject({ aliases: ["m1-latest", "m1-2025*"], drop_params: ["temperature", "top_p"], targets: [{ weight: 3, priority: 1 }] });
    expect(full.server_options[0]!.strict_params).toBe(true);
  });

  it("refuses a weight of 0 and an alias another model already has, naming the path and both models", () => {
    expect(errorOf(valid.replace("model: m1-upstream }", "model: m1-upstream, weight: 0 }"))).toMatch(/models\[0\]\.targets\[0\]\.weight: /);
    expect(errorOf(valid.replace("secret_env: UP_A_KEY }", "secret_env: UP_A_KEY, weight: 0 }"))).toMatch(/upstreams\[0\]\.weight: /);
    const two = (aliasesA: string, aliasesB: string) =>
      valid.replace(
        "    prices: { input: \"0.15\", output: \"0.6\" }\n    targets: [ { upstream: up-a, model: m1-upstream } ]",
        `    aliases: ${aliasesA}\n    prices: { input: "0.15", output: "0.6" }\n    targets: [ { upstream: up-a, model: m1-upstream } ]\n  - name: m2\n    aliases: ${aliasesB}\n    prices: {}\n    targets: [ { upstream: up-a, model: m2-upstream } ]`,
      );
    expect(errorOf(two("[shared]", "[other, shared]"))).toMatch(/models\[1\]\.aliases\[1\]: alias "shared" of the model "m2" collides with an alias of the model "m1"/);
    expect(errorOf(two("[m2]", "[]"))).toMatch(/models\[0\]\.aliases\[0\]: alias "m2" of the model "m1" collides with the model "m2"/);
    expect(errorOf(two('["m-*"]', '["m-*"]'))).toMatch(/models\[1\]\.aliases\[0\]: alias "m-\*" of the model "m2" collides with an alias of the model "m1"/);
    expect(errorOf(two('["has space"]', "[]"))).toMatch(/models\[0\]\.aliases\[0\]: a model name, or a pattern/);
    // Overlapping patterns, a pattern that matches nothing, and a model repeating its own name are fine.
    expect(parseGatewayFile(two('["m*", "nothing-matches-*", m1]', '["m-*", "m*x"]')).models.map((m) => m.aliases)).toEqual([["m*", "nothing-matches-*", "m1"], ["m-*", "m*x"]]);
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

describe("models[].capabilities (contract section 15)", () => {
  const twoFamilies = `
upstreams:
  - { name: up-o, shape: openai, base_url: "http://127.0.0.1:1/v1" }
  - { name: up-a, shape: anthropic, base_url: "http://127.0.0.1:1" }
models:
  - { name: o-default, prices: {}, targets: [ { upstream: up-o, model: x } ] }
  - { name: a-default, prices: {}, targets: [ { upstream: up-a, model: x }, { upstream: up-o, model: y } ] }
  - name: a-set
    prices: {}
    capabilities: { max_output_tokens: 64000, context_window: 200000, mid_conversation_system: true }
    targets: [ { upstream: up-a, model: x } ]
  - { name: image, prices: {}, capabilities: { max_output_tokens: 0, tools: false }, targets: [ { upstream: up-o, model: x } ] }
`;

  it("what the file leaves out comes from the family of the first target's upstream; what it gives wins", () => {
    const models = Object.fromEntries(parseGatewayFile(twoFamilies).models.map((m) => [m.name, m.capabilities]));
    expect(models["o-default"]).toEqual(FAMILY_CAPABILITIES.openai);
    expect(models["a-default"]).toEqual(FAMILY_CAPABILITIES.anthropic);
    expect(models["a-set"]).toEqual({ ...FAMILY_CAPABILITIES.anthropic, max_output_tokens: 64000, context_window: 200000, mid_conversation_system: true });
    expect(models.image).toEqual({ ...FAMILY_CAPABILITIES.openai, max_output_tokens: 0, tools: false });
    // The documented defaults: 4096 output tokens, which every model of either family accepts.
    expect(FAMILY_CAPABILITIES.openai).toMatchObject({ max_output_tokens: 4096, context_window: 128000, reasoning: false, mid_conversation_system: true });
    expect(FAMILY_CAPABILITIES.anthropic).toMatchObject({ max_output_tokens: 4096, context_window: 200000, reasoning: true, mid_conversation_system: false });
  });

  it("thinking_style and can_disable_thinking: a Gemini model defaults to Gemini 3's (level, cannot be off); a 2.5 model sets budget", () => {
    const gemini = `
upstreams:
  - { name: up-g, shape: gemini, base_url: "http://127.0.0.1:1/v1beta" }
models:
  - { name: g3, prices: {}, targets: [ { upstream: up-g, model: gemini-3.1-pro-preview } ] }
  - { name: g25, prices: {}, capabilities: { thinking_style: budget, can_disable_thinking: true }, targets: [ { upstream: up-g, model: gemini-2.5-flash } ] }
`;
    const models = Object.fromEntries(parseGatewayFile(gemini).models.map((m) => [m.name, m.capabilities]));
    expect(models.g3).toMatchObject({ thinking_style: "level", can_disable_thinking: false });
    expect(models.g25).toMatchObject({ thinking_style: "budget", can_disable_thinking: true });
    expect(FAMILY_CAPABILITIES.gemini).toMatchObject({ thinking_style: "level", can_disable_thinking: false });
    // Google's two field names, nothing else; a boolean, not a string.
    expect(errorOf(gemini.replace("thinking_style: budget", "thinking_style: tokens"))).toContain("models[1].capabilities.thinking_style");
    expect(errorOf(gemini.replace("can_disable_thinking: true", 'can_disable_thinking: "yes"'))).toContain("models[1].capabilities.can_disable_thinking");
  });

  it("refuses, naming the path, what is not a capability: a bound out of range, a fraction, a string, an unknown field, output above the context", () => {
    const withCapabilities = (text: string) => twoFamilies.replace("capabilities: { max_output_tokens: 0, tools: false }", `capabilities: ${text}`);
    expect(errorOf(withCapabilities("{ max_output_tokens: -1 }"))).toContain("models[3].capabilities.max_output_tokens");
    expect(errorOf(withCapabilities("{ max_output_tokens: 1.5 }"))).toContain("models[3].capabilities.max_output_tokens");
    expect(errorOf(withCapabilities("{ max_output_tokens: 1e15 }"))).toContain("models[3].capabilities.max_output_tokens");
    expect(errorOf(withCapabilities('{ max_output_tokens: "16384" }'))).toContain("models[3].capabilities.max_output_tokens");
    expect(errorOf(withCapabilities("{ context_window: 0 }"))).toContain("models[3].capabilities.context_window");
    expect(errorOf(withCapabilities("{ vision: 1 }"))).toContain("models[3].capabilities.vision");
    expect(errorOf(withCapabilities("{ max_output: 5 }"))).toContain("models[3].capabilities");
    expect(errorOf(withCapabilities("{ max_output_tokens: 300000, context_window: 200000 }"))).toContain("models[3].capabilities.max_output_tokens: 300000 is above the model's context_window (200000)");
  });

  it("the demo file and its Kubernetes copies give every model its real capabilities", () => {
    const root = new URL("../../../", import.meta.url);
    const files = ["infra/demo/gateway.yaml", "infra/k8s/overlays/demo/gateway.yaml", "infra/k8s/overlays/production/gateway.yaml"];
    const real: Record<string, number> = { "gpt-4o-mini": 16384, "claude-sonnet-4-5": 64000, "claude-haiku-4-5": 64000, "gpt-image-1": 0, "claude-opus-5-5": 128000, "claude-sonnet-5-5": 128000, "claude-haiku-5-5": 128000, "gpt-6.2-sol": 128000, "gemini-3.1-pro-preview": 65536, "gemini-3.8-flash": 65536, "gemini-3.5-flash-lite": 65536, "gemini-2.5-pro": 65536, "gemini-2.5-flash": 65536 };
    for (const path of files) {
      const text = readFileSync(new URL(path, root), "utf8");
      const file = parseGatewayFile(text, path, { SIMULATOR_URL: "http://127.0.0.1:4010" });
      const raw = (parseYaml(text) as { models: { name: string; capabilities?: Record<string, unknown> }[] }).models;
      for (const model of file.models) {
        // Written out in full, not left to the family defaults.
        expect(Object.keys(raw.find((m) => m.name === model.name)!.capabilities ?? {}).sort(), `${path} ${model.name}`).toEqual(Object.keys(FAMILY_CAPABILITIES.openai).sort());
        expect(model.capabilities.max_output_tokens, `${path} ${model.name}`).toBe(real[model.name]);
      }
    }
  });
});
