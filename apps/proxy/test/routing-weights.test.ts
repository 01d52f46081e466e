import { afterAll, beforeAll, describe, expect, it } from "vitest";
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { parseGatewayFile } from "@gateway/config";
import { applyGatewayFile } from "@gateway/control-plane";
import { startStack, testGatewayYaml, type Stack } from "./stack.ts";

/**
 * Weighted spreading and aliases, end to end (contract section 11): a real proxy and control plane,
 * the simulator behind three upstream names. The upstreams carry the weight and priority; the
 * targets leave them out, so the upstream's are the defaults.
 */
let stack: Stack;
let key: string;

function weightedYaml(simulatorUrl: string): string {
  const upstream = (name: string, extra: string) =>
    `  - { name: ${name}, shape: openai, base_url: "${simulatorUrl}/v1", secret_env: TEST_SIMULATOR_KEY, timeouts: { connect_ms: 1000, first_byte_ms: 1500 }${extra} }\n`;
  return testGatewayYaml(simulatorUrl)
    .replace("models:\n", `${upstream("weighted-a", ", weight: 3")}${upstream("weighted-b", "")}${upstream("weighted-c", ", priority: 1")}models:\n`)
    .replace(
      "  - name: hidden-test",
      [
        "  - name: weighted-test",
        '    aliases: [weighted-latest, "weighted-2025*", "weighted-*"]',
        '    prices: { input: "1", output: "2" }',
        "    targets: [ { upstream: weighted-c, model: backup-c }, { upstream: weighted-a, model: spread-a }, { upstream: weighted-b, model: spread-b } ]",
        "  - name: weighted-other",
        '    aliases: [other-latest, "weighted-other-*"]',
        '    prices: { input: "1", output: "2" }',
        "    targets: [ { upstream: weighted-a, model: other-a } ]",
        "  - name: hidden-test",
      ].join("\n"),
    )
    .replace("server_options:\n", "server_options:\n  - { name: weighted, models: [weighted-test, claude-test] }\n")
    .replace("server_options: [standard, premium]", "server_options: [standard, premium, weighted]");
}

beforeAll(async () => {
  stack = await startStack({ CIRCUIT_FAILURE_THRESHOLD: "2", CIRCUIT_COOLDOWN_MS: "60000" });
  await applyGatewayFile(stack.controlPlane.db.prisma, stack.controlPlane.records, parseGatewayFile(weightedYaml(stack.simulator.url)));
  ({ key } = await stack.mintKey({ serverOption: "weighted" }));
  const openai = new OpenAI({ baseURL: `${stack.proxy.url}/v1`, apiKey: key, maxRetries: 0 });
  // The proxy picks the new snapshot up from its change notice.
  for (const started = Date.now(); (await openai.models.retrieve("weighted-test").catch(() => null))?.id !== "weighted-test"; ) {
    if (Date.now() - started > 2_000) throw new Error("the proxy never loaded the weighted routes");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
});
afterAll(async () => stack?.close());

function chat(model: string) {
  return fetch(`${stack.proxy.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model, max_tokens: 8, messages: [{ role: "user", content: "hi" }] }),
  });
}

/** Sends `total` requests, `concurrency` at a time; returns their statuses. */
async function send(total: number, concurrency: number, model = "weighted-test"): Promise<number[]> {
  const statuses: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next += 1;
        const response = await chat(model);
        await response.arrayBuffer();
        statuses.push(response.status);
      }
    }),
  );
  return statuses;
}

const served = () => {
  const counts: Record<string, number> = {};
  for (const record of stack.simulator.stats.requests) if (record.model) counts[record.model] = (counts[record.model] ?? 0) + 1;
  return counts;
};

describe("weighted spreading over priorities", () => {
  it("1,000 requests split 3:1 by weight over the priority-0 targets (within 5 %); the priority-1 target gets none", async () => {
    stack.simulator.stats.clear();
    const statuses = await send(1000, 16);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1000);
    const counts = served();
    expect((counts["spread-a"] ?? 0) + (counts["spread-b"] ?? 0)).toBe(1000);
    expect(Math.abs((counts["spread-a"] ?? 0) / 1000 - 0.75)).toBeLessThanOrEqual(0.05);
    expect(Math.abs((counts["spread-b"] ?? 0) / 1000 - 0.25)).toBeLessThanOrEqual(0.05);
    expect(counts["backup-c"]).toBeUndefined();
  });

  it("the priority-1 target serves when both priority-0 upstreams fail, and their open circuits are tried last", async () => {
    stack.simulator.stats.clear();
    stack.simulator.faults.push({ match: { model: "spread-a" }, times: 1000, behaviour: { failStatus: 503 } });
    stack.simulator.faults.push({ match: { model: "spread-b" }, times: 1000, behaviour: { failStatus: 503 } });
    try {
      // Each failure counts against its circuit (threshold 2): the first requests try a and b first.
      const first = await send(3, 1);
      expect(first).toEqual([200, 200, 200]);
      expect(stack.simulator.stats.requests.filter((r) => r.model === "backup-c" && r.outcome === "ok")).toHaveLength(3);
      // Both circuits are open now: requests go straight to the priority-1 target.
      stack.simulator.stats.clear();
      expect(await send(20, 4)).toEqual(Array(20).fill(200));
      expect(served()).toEqual({ "backup-c": 20 });
    } finally {
      stack.simulator.faults.clear();
    }
  });
});

describe("aliases", () => {
  it("an exact alias and a pattern answer 200 and are billed under the canonical name", async () => {
    stack.simulator.stats.clear();
    for (const name of ["weighted-latest", "weighted-20250929", "weighted-anything"]) {
      const response = await chat(name);
      expect(response.status).toBe(200);
      await response.json();
      const events = await stack.billingEvents(response.headers.get("x-request-id")!);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ model: "weighted-test", status: "ok" });
    }
    // The official SDK, by a pattern alias, in the Anthropic shape too (claude-test has no alias: 404).
    const anthropic = new Anthropic({ baseURL: stack.proxy.url, apiKey: key, maxRetries: 0 });
    const message = await anthropic.messages.create({ model: "weighted-2026-01-01", max_tokens: 8, messages: [{ role: "user", content: "hi" }] });
    expect(message.type).toBe("message");
    await expect(anthropic.messages.create({ model: "claude-test-2025", max_tokens: 8, messages: [{ role: "user", content: "hi" }] })).rejects.toMatchObject({ status: 404 });
  });

  it("an alias of a model the key's server option does not allow is refused like the model itself; the first pattern in file order wins", async () => {
    for (const name of ["other-latest", "weighted-other"]) {
      const response = await chat(name);
      expect(response.status).toBe(403);
      expect(await response.json()).toMatchObject({ error: { param: "model", message: "This key may not call the model 'weighted-other'." } });
    }
    // weighted-other's more specific pattern comes after weighted-test's "weighted-*" in the file.
    const response = await chat("weighted-other-1");
    expect(response.status).toBe(200);
    expect((await stack.billingEvents(response.headers.get("x-request-id")!))[0]).toMatchObject({ model: "weighted-test" });
  });

  it("/v1/models lists canonical names only; retrieving an alias answers the canonical model", async () => {
    const openai = new OpenAI({ baseURL: `${stack.proxy.url}/v1`, apiKey: key, maxRetries: 0 });
    const ids = [];
    for await (const model of openai.models.list()) ids.push(model.id);
    expect(ids.sort()).toEqual(["claude-test", "weighted-test"]);
    expect((await openai.models.retrieve("weighted-latest")).id).toBe("weighted-test");
    expect((await openai.models.retrieve("weighted-2025-05-01")).id).toBe("weighted-test");
    await expect(openai.models.retrieve("hidden-test")).rejects.toMatchObject({ status: 404 });
    const anthropic = new Anthropic({ baseURL: stack.proxy.url, apiKey: key, maxRetries: 0 });
    expect((await anthropic.models.retrieve("weighted-latest")).id).toBe("weighted-test");
  });
});
