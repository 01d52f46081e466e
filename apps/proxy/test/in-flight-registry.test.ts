// Contract section 14: every admitted request is in the process's in-flight registry for its whole
// life, with its progress (what it would be billed for if it ended now: the estimate's rules), and
// leaves it once its billing event is recorded. The in-flight journal checkpoints that progress
// every second, so a killed process is billed for what it relayed.
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestBody, SHAPE_PATH, shapeHeaders, streamedText, wordCount, type ClientShape } from "./hostile-requests.ts";
import { startStack, type Stack } from "./stack.ts";

let stack: Stack;
let key: { id: string; key: string };
beforeAll(async () => {
  stack = await startStack();
  key = await stack.mintKey({ serverOption: "cross-shape" });
});
afterAll(async () => stack?.close());

describe("the in-flight registry", () => {
  for (const [shape, model] of [
    ["messages", "gpt-on-anthropic"],
    ["chat", "gpt-on-anthropic"],
    ["responses", "claude-on-openai"],
  ] as Array<[ClientShape, string]>) {
    it(`holds a ${shape} stream on ${model} while it runs, its progress never below the words relayed, and lets it go once billed`, async () => {
      const { hostname, port } = new URL(stack.proxy.url);
      const body = requestBody(shape, model, "progress #sim:chunks=60 #sim:chunk_delay_ms=25", true, shape === "messages" ? { max_tokens: "100" } : {});
      const checked: number[] = [];
      const requestId = await new Promise<string>((resolve, reject) => {
        const call = httpRequest({ hostname, port, method: "POST", path: SHAPE_PATH[shape], headers: shapeHeaders(shape, key.key), agent: false }, (response) => {
          const id = String(response.headers["x-request-id"]);
          let text = "";
          response.setEncoding("utf8");
          response.on("data", (chunk: string) => {
            text += chunk;
            const entry = stack.proxy.services.inFlight.get(id);
            if (entry === undefined) return;
            expect(entry).toMatchObject({ keyId: key.id, model, stream: true, upstream: model === "gpt-on-anthropic" ? "sim-anthropic-a" : "sim-openai-a" });
            // What the client has read is at most what was relayed: the progress counts all of it.
            const progress = entry.progress();
            expect(progress.outputTokens).toBeGreaterThanOrEqual(wordCount(streamedText(shape, text)));
            expect(progress.inputTokens).toBeGreaterThan(0);
            checked.push(progress.outputTokens);
          });
          response.on("end", () => resolve(id));
        });
        call.on("error", reject);
        call.end(body);
      });
      expect(checked.length).toBeGreaterThan(10);
      expect(checked).toEqual([...checked].sort((a, b) => a - b));
      const [event] = await stack.billingEvents(requestId);
      expect(event).toMatchObject({ status: "ok", estimated: false, usage: { outputTokens: 60 } });
      expect(stack.proxy.services.inFlight.get(requestId)).toBeUndefined();
    });
  }

  it("holds a request waiting for a JSON answer, its progress the input alone", async () => {
    const waiting = fetch(`${stack.proxy.url}/v1/chat/completions`, {
      method: "POST",
      headers: shapeHeaders("chat", key.key),
      body: requestBody("chat", "claude-on-openai", "json #sim:latency_ms=800", false),
    });
    await expect.poll(() => [...stack.proxy.services.inFlight.entries()].filter((entry) => entry.keyId === key.id).length).toBe(1);
    const [entry] = [...stack.proxy.services.inFlight.entries()].filter((one) => one.keyId === key.id);
    expect(entry!.progress()).toMatchObject({ outputTokens: 0 });
    expect(entry!.progress().inputTokens).toBeGreaterThan(0);
    const response = await waiting;
    expect(response.status).toBe(200);
    await response.arrayBuffer();
    expect(await stack.billingEvents(entry!.requestId)).toHaveLength(1);
    expect(stack.proxy.services.inFlight.size).toBe(0);
  });
});
