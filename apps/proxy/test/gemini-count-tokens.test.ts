import { expect, it } from "vitest";
import { SIMULATOR_SECRET } from "./stack.ts";
import { useGeminiStack } from "./gemini-stack.ts";

/**
 * `:countTokens` on an Anthropic-shape model (shared/design/neutral-core.md section 6): the Gemini
 * body is read as generateContent would be and sent to the model's Anthropic-shape targets as a
 * `/v1/messages/count_tokens` body, in order with failover; Anthropic's `input_tokens` comes back
 * as `totalTokens`, never billed. The simulator counts `ceil(chars / 4)`, which no tokenizer gives
 * for the texts below, so a local count would not pass.
 */
const suite = useGeminiStack();

/** What the simulator's Anthropic count answers for a body, asked directly. */
async function upstreamCount(body: unknown): Promise<number> {
  const response = await fetch(`${suite.stack.simulator.url}/v1/messages/count_tokens`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": SIMULATOR_SECRET, "anthropic-version": "2023-06-01" },
    body: JSON.stringify(body),
  });
  return ((await response.json()) as { input_tokens: number }).input_tokens;
}

const TEXT = "x".repeat(401);

it("@google/genai countTokens on the Anthropic-shape model: the upstream's count of the translated messages", async () => {
  const counted = await suite.ai.models.countTokens({ model: "claude-test", contents: TEXT });
  const forwarded = suite.stack.simulator.stats.requests;
  expect(forwarded).toHaveLength(1);
  expect(forwarded[0]).toMatchObject({ path: "/v1/messages/count_tokens", provider: "anthropic", model: "claude-upstream-a", outcome: "ok" });
  // The Messages count body: the user text, no max_tokens (the count takes none).
  expect(forwarded[0]!.body).toEqual({ model: "claude-upstream-a", messages: [{ role: "user", content: [{ type: "text", text: TEXT }] }] });
  expect(counted.totalTokens).toBe(Math.ceil(TEXT.length / 4));
  expect(counted.totalTokens).toBe(await upstreamCount(forwarded[0]!.body));
});

it("the generateContentRequest form: system instruction and tools reach the count; failover on a 5xx; never billed", async () => {
  suite.stack.simulator.faults.push({ match: { path: "/v1/messages/count_tokens", model: "claude-upstream-a" }, times: 1, behaviour: { failStatus: 503 } });
  const tool = { name: "get_weather", description: "The weather", parametersJsonSchema: { type: "object", properties: { city: { type: "string" } } } };
  const response = await fetch(`${suite.stack.proxy.url}/v1beta/models/claude-test:countTokens`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-goog-api-key": suite.key },
    body: JSON.stringify({
      generateContentRequest: {
        model: "models/claude-test",
        contents: [{ role: "user", parts: [{ text: TEXT }] }],
        systemInstruction: { parts: [{ text: "Be brief." }] },
        tools: [{ functionDeclarations: [tool] }],
        generationConfig: { maxOutputTokens: 100 },
      },
    }),
  });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { totalTokens: number };
  expect(suite.stack.simulator.stats.requests.map((record) => [record.model, record.status])).toEqual([["claude-upstream-a", 503], ["claude-upstream-b", 200]]);
  const sent = suite.stack.simulator.stats.last!.body as Record<string, unknown>;
  expect(sent).toMatchObject({ model: "claude-upstream-b", system: "Be brief.", tools: [{ name: "get_weather", description: "The weather", input_schema: tool.parametersJsonSchema }] });
  expect(sent.max_tokens).toBeUndefined();
  expect(body).toEqual({ totalTokens: await upstreamCount(sent) });
  expect(body.totalTokens).toBeGreaterThan(Math.ceil(TEXT.length / 4));
  expect(await suite.stack.billingEvents(response.headers.get("x-request-id")!)).toEqual([]);
});

it("every Anthropic target failing: counted here, as before; an upstream 4xx comes back in Google's envelope", async () => {
  suite.stack.simulator.faults.push({ match: { path: "/v1/messages/count_tokens" }, times: 10, behaviour: { failStatus: 500 } });
  const counted = await suite.ai.models.countTokens({ model: "claude-test", contents: TEXT });
  const statuses = suite.stack.simulator.stats.requests.map((record) => record.status);
  expect(statuses.length).toBeGreaterThanOrEqual(2);
  expect(new Set(statuses)).toEqual(new Set([500]));
  expect(counted.totalTokens).toBeGreaterThan(0);
  expect(counted.totalTokens).not.toBe(Math.ceil(TEXT.length / 4));

  suite.stack.simulator.faults.clear();
  suite.stack.simulator.faults.push({ match: { path: "/v1/messages/count_tokens" }, times: 1, behaviour: { failStatus: 400 } });
  const refused = await fetch(`${suite.stack.proxy.url}/v1beta/models/claude-test:countTokens`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-goog-api-key": suite.key },
    body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hi" }] }] }),
  });
  expect(refused.status).toBe(400);
  expect(((await refused.json()) as { error: { status: string } }).error.status).toBe("INVALID_ARGUMENT");
});
