import { afterAll, beforeAll, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { parseGatewayFile } from "@gateway/config";
import { applyGatewayFile } from "@gateway/control-plane";
import { startStack, testGatewayYaml, type Stack } from "./stack.ts";

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ CIRCUIT_FAILURE_THRESHOLD: "2", CIRCUIT_COOLDOWN_MS: "60000" });
});
afterAll(async () => stack?.close());

describe("routing", () => {
  it("a config change reaches the running proxy without a restart", async () => {
    const { key } = await stack.mintKey();
    const openai = new OpenAI({ baseURL: `${stack.proxy.url}/v1`, apiKey: key, maxRetries: 0 });
    await expect(openai.models.retrieve("gpt-new")).rejects.toMatchObject({ status: 404 });
    const yaml = testGatewayYaml(stack.simulator.url)
      .replace("  - name: hidden-test", '  - name: gpt-new\n    prices: { input: "1", output: "1" }\n    targets: [ { upstream: sim-openai-b, model: brand-new } ]\n  - name: hidden-test')
      .replace("models: [gpt-test, claude-test, image-test, dead-test]", "models: [gpt-test, claude-test, image-test, dead-test, gpt-new]");
    await applyGatewayFile(stack.controlPlane.db.prisma, stack.controlPlane.records, parseGatewayFile(yaml));
    await expect.poll(async () => (await openai.models.retrieve("gpt-new").catch(() => null))?.id, { timeout: 1_000, interval: 50 }).toBe("gpt-new");
    await openai.chat.completions.create({ model: "gpt-new", messages: [{ role: "user", content: "hi" }] });
    expect(stack.simulator.stats.requests.at(-1)!.model).toBe("brand-new");
  });

  it("a failing upstream is cooled down: later requests go straight to the next target", async () => {
    const { key } = await stack.mintKey();
    stack.simulator.faults.push({ match: { model: "claude-upstream-a" }, times: 2, behaviour: { failStatus: 503 } });
    const ask = () => fetch(`${stack.proxy.url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: JSON.stringify({ model: "claude-test", max_tokens: 16, messages: [{ role: "user", content: "hi" }] }),
    });
    expect((await ask()).status).toBe(200);
    expect((await ask()).status).toBe(200);
    stack.simulator.stats.clear();
    expect((await ask()).status).toBe(200);
    expect(stack.simulator.stats.requests.map((r) => r.model)).toEqual(["claude-upstream-b"]);
  });
});
