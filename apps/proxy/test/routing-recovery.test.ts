import { afterAll, beforeAll, expect, it } from "vitest";
import { parseGatewayFile } from "@gateway/config";
import { applyGatewayFile } from "@gateway/control-plane";
import { resolveTestServices } from "@gateway/testing";
import { SIMULATOR_SECRET, startStack, testGatewayYaml, type Stack } from "./stack.ts";
import { spawnProxy, type ProxyProcess } from "./replicas.ts";

/**
 * Weights through an outage, on every proxy process (issue 40): two targets weighted 3:1 split
 * 3:1; the heavier one fails until its circuit opens on both proxies (the in-test one and a real
 * process), comes back after the cooldown, and from the first request after that it gets 3 of 4
 * again on each proxy (main measured 107 of 200: the round-robin kept the outage's state and the
 * half-open probe was claimed by requests that never tried it).
 */
/** A cooldown longer than the outage's requests take: no probe before the recovery. */
const COOLDOWN_MS = 1500;
const CIRCUIT = { CIRCUIT_FAILURE_THRESHOLD: "2", CIRCUIT_COOLDOWN_MS: String(COOLDOWN_MS) };
let stack: Stack;
let other: ProxyProcess;
let key: string;

beforeAll(async () => {
  stack = await startStack(CIRCUIT);
  const yaml = testGatewayYaml(stack.simulator.url)
    .replace(
      "models:\n",
      ["a", "b"].map((name) => `  - { name: recover-${name}, shape: openai, base_url: "${stack.simulator.url}/v1", secret_env: TEST_SIMULATOR_KEY, ${name === "a" ? "weight: 3, " : ""}timeouts: { connect_ms: 1000, first_byte_ms: 1500 } }\n`).join("") + "models:\n",
    )
    .replace("  - name: hidden-test", '  - { name: recover-test, prices: { input: "1", output: "2" }, targets: [ { upstream: recover-a, model: heavy }, { upstream: recover-b, model: light } ] }\n  - name: hidden-test')
    .replace("server_options:\n", "server_options:\n  - { name: recover, models: [recover-test] }\n")
    .replace("server_options: [standard, premium]", "server_options: [standard, premium, recover]");
  await applyGatewayFile(stack.controlPlane.db.prisma, stack.controlPlane.records, parseGatewayFile(yaml));
  ({ key } = await stack.mintKey({ serverOption: "recover" }));
  const { redisUrl } = await resolveTestServices();
  other = await spawnProxy({ REDIS_URL: redisUrl, REDIS_PREFIX: stack.prefix, TEST_SIMULATOR_KEY: SIMULATOR_SECRET, ...CIRCUIT });
  for (const url of [stack.proxy.url, other.url]) {
    for (const started = Date.now(); (await chat(url)).status !== 200; ) {
      if (Date.now() - started > 5_000) throw new Error(`${url} never loaded the routes`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}, 60_000);
afterAll(async () => {
  await other?.stop();
  await stack?.close();
});

async function chat(proxyUrl: string): Promise<Response> {
  const response = await fetch(`${proxyUrl}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "recover-test", max_tokens: 4, messages: [{ role: "user", content: "hi" }] }),
  });
  await response.arrayBuffer();
  return response;
}

/** `perProxy` requests on each proxy, alternating; the served model of each, per proxy. */
async function round(perProxy: number): Promise<{ local: string[]; spawned: string[] }> {
  const served = { local: [] as string[], spawned: [] as string[] };
  for (let i = 0; i < perProxy; i += 1) {
    for (const [name, url] of [["local", stack.proxy.url], ["spawned", other.url]] as const) {
      stack.simulator.stats.clear();
      expect((await chat(url)).status).toBe(200);
      served[name].push(stack.simulator.stats.requests.filter((record) => record.status === 200).at(-1)!.model!);
    }
  }
  return served;
}
const heavy = (models: string[]) => models.filter((model) => model === "heavy").length;

it("3:1 weights hold from the first request after the heavier target's circuit opened and closed, on each proxy process", async () => {
  // With the warm-up request, 100 per proxy: whole cycles of a,a,b,a, so the outage starts a cycle and
  // the circuit opens after two picks of the heavy target, when the old round-robin owed the light one
  // two turns (the state in which main's recovered target lost its probe and sat out another cooldown).
  const before = await round(99);
  expect([heavy(before.local), heavy(before.spawned)]).toEqual([74, 74]);
  // The heavier target fails until its circuit is open on both proxies; the light one serves everything.
  stack.simulator.faults.push({ match: { model: "heavy" }, times: 10_000, behaviour: { failStatus: 503 } });
  const outage = await round(5);
  expect(heavy(outage.local) + heavy(outage.spawned)).toBe(0);
  stack.simulator.faults.clear();
  await new Promise((resolve) => setTimeout(resolve, COOLDOWN_MS + 200));
  const after = await round(100);
  // The half-open probe is each proxy's first request; then 3 of every 4, from the start.
  expect([after.local[0], after.spawned[0]]).toEqual(["heavy", "heavy"]);
  for (const served of [after.local, after.spawned]) {
    expect(Math.abs(heavy(served) - 75)).toBeLessThanOrEqual(5);
    expect(heavy(served.slice(0, 20))).toBe(15);
  }
});
