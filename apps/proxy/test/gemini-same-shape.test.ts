import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import fc from "fast-check";
import { ApiError, type GoogleGenAI } from "@google/genai";
import type { Stack } from "./stack.ts";
import { envelope, genai, rejection, startGeminiStack } from "./gemini-stack.ts";

/**
 * Contract section 16 through the real stack (proxy, Redis, control plane, simulator) with the
 * official `@google/genai` client on a Gemini-shape model: the client's bytes relayed to a Gemini
 * upstream (`/v1` and `/v1beta`), streaming as Google frames it, a chat with function calling over
 * two steps (Gemini 3 signatures round-tripped), countTokens, embeddings, models, Google's key forms
 * and error envelope, and the billing event of each call.
 */
let stack: Stack;
let key: string;
let ai: GoogleGenAI;
let beta: GoogleGenAI;

beforeAll(async () => {
  ({ stack, key } = await startGeminiStack());
  ai = genai(stack, key);
  beta = genai(stack, key, "v1beta");
});
afterAll(async () => stack?.close());
beforeEach(() => {
  stack.simulator.faults.clear();
  stack.simulator.stats.clear();
});

/** The billing event of the last request the proxy answered with this request id. */
async function billed(requestId: string | null) {
  expect(requestId).toEqual(expect.any(String));
  const events = await stack.billingEvents(requestId!);
  expect(events).toHaveLength(1);
  return events[0]!;
}

async function lastRequestId(call: () => Promise<unknown>): Promise<string | null> {
  let id: string | null = null;
  const original = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    const response = await original(input, init);
    id = response.headers.get("x-request-id");
    return response;
  };
  try {
    await call();
  } finally {
    globalThis.fetch = original;
  }
  return id;
}

describe("a Gemini client on a Gemini-shape model", () => {
  it("generateContent under /v1 and /v1beta: the upstream's answer, usage billed under gemini.generate_content", async () => {
    let answer: Awaited<ReturnType<typeof ai.models.generateContent>> | undefined;
    const requestId = await lastRequestId(async () => {
      answer = await ai.models.generateContent({ model: "gemini-test", contents: "Say hello", config: { systemInstruction: "Be brief.", maxOutputTokens: 50 } });
    });
    expect(answer!.text).toEqual(expect.any(String));
    expect(answer!.text!.length).toBeGreaterThan(0);
    expect(answer!.candidates?.[0]?.finishReason).toBe("STOP");
    const usage = answer!.usageMetadata!;
    expect(usage.promptTokenCount).toBeGreaterThan(0);
    const upstream = stack.simulator.stats.last!;
    expect(upstream.path).toBe("/v1beta/models/gemini-2.5-flash:generateContent");
    // The gateway's own key is sent upstream, never the client's.
    expect(upstream.headers["x-goog-api-key"]).not.toBe(key);
    const event = await billed(requestId);
    expect(event).toMatchObject({ endpoint: "gemini.generate_content", model: "gemini-test", upstream: "sim-gemini", upstreamModel: "gemini-2.5-flash", status: "ok", stream: false, estimated: false });
    expect(event.usage.inputTokens).toBe(usage.promptTokenCount);
    expect(event.usage.outputTokens).toBe((usage.candidatesTokenCount ?? 0) + (usage.thoughtsTokenCount ?? 0));

    const viaBeta = await beta.models.generateContent({ model: "gemini-test", contents: "Say hello" });
    expect(viaBeta.text!.length).toBeGreaterThan(0);
  });

  it("generateContentStream: Google's frames relayed, the last with finishReason and usage, billed exactly", async () => {
    let text = "";
    let finish: string | undefined;
    let lastUsage: Record<string, number | undefined> | undefined;
    const requestId = await lastRequestId(async () => {
      for await (const chunk of await ai.models.generateContentStream({ model: "gemini-test", contents: "Tell me a story" })) {
        text += chunk.text ?? "";
        finish = chunk.candidates?.[0]?.finishReason ?? finish;
        if (chunk.usageMetadata) lastUsage = chunk.usageMetadata as Record<string, number | undefined>;
      }
    });
    expect(text.length).toBeGreaterThan(0);
    expect(finish).toBe("STOP");
    expect(stack.simulator.stats.last!.path).toBe("/v1beta/models/gemini-2.5-flash:streamGenerateContent");
    const event = await billed(requestId);
    expect(event).toMatchObject({ endpoint: "gemini.generate_content", stream: true, status: "ok", estimated: false });
    expect(event.usage.outputTokens).toBe((lastUsage!.candidatesTokenCount ?? 0) + (lastUsage!.thoughtsTokenCount ?? 0));
    expect(event.usage.reasoningTokens).toBe(lastUsage!.thoughtsTokenCount ?? 0);
  });

  it("a chat with function calling over two steps on Gemini 3: the call's id and thought signature round-trip", async () => {
    const tools = [{ functionDeclarations: [{ name: "get_weather", parametersJsonSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } }] }];
    const args = { city: "Lisbon" };
    const directive = `Weather? #sim:tool=get_weather #sim:tool_args=${Buffer.from(JSON.stringify(args)).toString("base64url")}`;
    const chat = beta.chats.create({ model: "gemini3-test", config: { tools } });
    const first = await chat.sendMessage({ message: directive });
    const call = first.functionCalls?.[0];
    expect(call).toMatchObject({ name: "get_weather", args, id: expect.any(String) });
    const signature = first.candidates?.[0]?.content?.parts?.[0]?.thoughtSignature;
    expect(signature).toEqual(expect.any(String));
    const second = await chat.sendMessage({ message: [{ functionResponse: { id: call!.id!, name: "get_weather", response: { temperature: 21 } } }] });
    expect(second.functionCalls).toBeUndefined();
    expect(second.text!.length).toBeGreaterThan(0);
    const sent = stack.simulator.stats.last!.body as { contents: Array<{ role: string; parts: Array<Record<string, unknown>> }> };
    expect(sent.contents.map((content) => content.role)).toEqual(["user", "model", "user"]);
    expect(sent.contents[1]!.parts[0]).toMatchObject({ functionCall: { name: "get_weather", args }, thoughtSignature: signature });
  });

  it("countTokens and embedContent are forwarded; the models are the key's, in Google's list form", async () => {
    let counted: Awaited<ReturnType<typeof ai.models.countTokens>> | undefined;
    const countId = await lastRequestId(async () => {
      counted = await ai.models.countTokens({ model: "gemini-test", contents: "How many tokens is this?" });
    });
    expect(counted!.totalTokens).toBeGreaterThan(0);
    expect(stack.simulator.stats.last!.path).toBe("/v1beta/models/gemini-2.5-flash:countTokens");
    // Never billed (as /v1/messages/count_tokens).
    expect(await stack.billingEvents(countId!)).toEqual([]);

    const embedded = await ai.models.embedContent({ model: "gemini-embedding-test", contents: ["one", "two"] });
    expect(embedded.embeddings).toHaveLength(2);
    expect(embedded.embeddings![0]!.values!.length).toBeGreaterThan(0);
    const sent = stack.simulator.stats.last!;
    expect(sent.path).toBe("/v1beta/models/gemini-embedding-001:batchEmbedContents");
    expect((sent.body as { requests: Array<{ model: string }> }).requests.map((request) => request.model)).toEqual(["models/gemini-embedding-001", "models/gemini-embedding-001"]);

    const names: string[] = [];
    for await (const model of await beta.models.list()) names.push(model.name!);
    expect(names.sort()).toEqual(["models/claude-test", "models/gemini-embedding-test", "models/gemini-test", "models/gemini3-test", "models/gpt-test"]);
    const one = await beta.models.get({ model: "gemini-test" });
    expect(one).toMatchObject({ name: "models/gemini-test", outputTokenLimit: 65536 });
  });
});

describe("keys and errors on the Gemini routes", () => {
  it("an unknown key is Google's 400 INVALID_ARGUMENT with ErrorInfo reason API_KEY_INVALID; the upstream never sees it", async () => {
    const error = await rejection(genai(stack, "sk-not-a-key").models.generateContent({ model: "gemini-test", contents: "hi" }));
    expect(error.status).toBe(400);
    const body = envelope(error);
    expect(body).toMatchObject({ code: 400, status: "INVALID_ARGUMENT" });
    expect(body.details?.[0]).toMatchObject({ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "API_KEY_INVALID" });
    expect(stack.simulator.stats.requests).toHaveLength(0);
  });

  it("takes the key as ?key= and as Authorization: Bearer", async () => {
    const body = JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hi" }] }] });
    const query = await fetch(`${stack.proxy.url}/v1beta/models/gemini-test:generateContent?key=${encodeURIComponent(key)}`, { method: "POST", headers: { "content-type": "application/json" }, body });
    expect(query.status).toBe(200);
    const bearer = await fetch(`${stack.proxy.url}/v1/models/gemini-test:generateContent`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${key}` }, body });
    expect(bearer.status).toBe(200);
    expect(((await bearer.json()) as { candidates: unknown[] }).candidates).toHaveLength(1);
  });

  it("an unknown model is 404 NOT_FOUND, a bad body 400 naming the field, both in Google's envelope", async () => {
    const missing = await rejection(ai.models.generateContent({ model: "no-such-model", contents: "hi" }));
    expect(missing.status).toBe(404);
    expect(envelope(missing)).toMatchObject({ code: 404, status: "NOT_FOUND" });
    const response = await fetch(`${stack.proxy.url}/v1beta/models/gemini-test:generateContent`, { method: "POST", headers: { "content-type": "application/json", "x-goog-api-key": key }, body: JSON.stringify({ contents: [] }) });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: number; status: string; message: string; details: Array<{ metadata: { param?: string } }> } };
    expect(body.error).toMatchObject({ code: 400, status: "INVALID_ARGUMENT" });
    expect(body.error.details[0]!.metadata.param).toBe("contents");
    const notJson = await fetch(`${stack.proxy.url}/v1beta/models/gemini-test:streamGenerateContent?alt=sse`, { method: "POST", headers: { "content-type": "application/json", "x-goog-api-key": key }, body: "{" });
    expect(notJson.status).toBe(400);
    expect(((await notJson.json()) as { error: { status: string } }).error.status).toBe("INVALID_ARGUMENT");
  });

  it("a key past its rate limit: 429 RESOURCE_EXHAUSTED with Google's RetryInfo (Gemini CLI waits retryDelay)", async () => {
    const limited = genai(stack, (await stack.mintKey({ serverOption: "gemini-limited" })).key);
    await limited.models.generateContent({ model: "gemini-test", contents: "hi" });
    const error = await rejection(limited.models.generateContent({ model: "gemini-test", contents: "hi" }));
    expect(error.status).toBe(429);
    const body = envelope(error);
    expect(body).toMatchObject({ code: 429, status: "RESOURCE_EXHAUSTED" });
    expect(body.details?.find((detail) => detail["@type"] === "type.googleapis.com/google.rpc.RetryInfo")).toMatchObject({ retryDelay: expect.stringMatching(/^\d+s$/) });
  });

  it("the output bound: above the model's maximum named natively is Google's 400 naming generationConfig.maxOutputTokens; none set runs under the maximum", async () => {
    const error = await rejection(ai.models.generateContent({ model: "gemini-test", contents: "hi", config: { maxOutputTokens: 70_000 } }));
    expect(error.status).toBe(400);
    expect(envelope(error).details?.[0]).toMatchObject({ metadata: { param: "generationConfig.maxOutputTokens" } });
    expect(stack.simulator.stats.requests).toHaveLength(0);
  });

  it("an upstream that fails mid-stream ends the stream with Google's error, which the SDK throws", async () => {
    stack.simulator.faults.push({ match: { path: "/v1beta/models/gemini-2.5-flash:streamGenerateContent" }, times: 1, behaviour: { cutAfter: 2 } });
    const error = await (async () => {
      try {
        for await (const chunk of await ai.models.generateContentStream({ model: "gemini-test", contents: "Tell me a long story" })) void chunk;
      } catch (thrown) {
        return thrown;
      }
      return null;
    })();
    // The final event is one `data:` line of Google's envelope: the SDK throws it as its ApiError.
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(500);
    expect(envelope(error as ApiError)).toMatchObject({ code: 500, status: "INTERNAL", message: expect.stringContaining("mid-stream") });
  });
});

/*
 * Hostile and fuzzed input on the Gemini routes: bodies built from a valid generateContent request
 * with any member replaced by any JSON value (Gemini CLI's own request shape: tools, toolConfig,
 * generationConfig with thinking and a JSON schema, function calls and responses), sent to a
 * Gemini-shape model (relayed) and to OpenAI- and Anthropic-shape models (read by the neutral core),
 * streamed or not; unknown methods and models, broken JSON, no key. Never a 5xx, and every error is
 * Google's envelope with the HTTP status as its code.
 */
const VALID = {
  contents: [
    { role: "user", parts: [{ text: "Weather?" }] },
    { role: "model", parts: [{ functionCall: { name: "get_weather", args: { city: "Lisbon" } }, thoughtSignature: "c2ln" }] },
    { role: "user", parts: [{ functionResponse: { name: "get_weather", response: { temperature: 21 } } }] },
  ],
  systemInstruction: { role: "user", parts: [{ text: "Be brief." }] },
  tools: [{ functionDeclarations: [{ name: "get_weather", parametersJsonSchema: { type: "object", properties: { city: { type: "string" } } } }] }],
  toolConfig: { functionCallingConfig: { mode: "AUTO" } },
  generationConfig: { temperature: 1, topP: 0.95, topK: 64, maxOutputTokens: 100, responseMimeType: "application/json", responseJsonSchema: { type: "OBJECT", properties: { a: { type: "STRING" } } }, thinkingConfig: { includeThoughts: true, thinkingLevel: "HIGH" } },
};

const json = fc.jsonValue({ maxDepth: 3 });

/** A JSON path into VALID (every object member and array item), to replace with anything. */
function paths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (value === null || typeof value !== "object") return [prefix];
  const entries = Array.isArray(value) ? value.map((item, index) => [index, item] as const) : Object.entries(value);
  return [prefix, ...entries.flatMap(([name, item]) => paths(item, [...prefix, name]))];
}
const PATHS = paths(VALID).filter((path) => path.length > 0);

function replaced(path: (string | number)[], replacement: unknown, remove: boolean): unknown {
  const copy = structuredClone(VALID) as Record<string | number, unknown>;
  let node: Record<string | number, unknown> = copy;
  for (const step of path.slice(0, -1)) node = node[step] as Record<string | number, unknown>;
  const last = path.at(-1)!;
  if (remove && !Array.isArray(node)) delete node[last];
  else node[last] = replacement;
  return copy;
}

async function send(path: string, body: string, headers: Record<string, string> = { "x-goog-api-key": key }): Promise<{ status: number; text: string }> {
  const response = await fetch(`${stack.proxy.url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
  return { status: response.status, text: await response.text() };
}

function expectGoogleError(status: number, text: string, what: string): void {
  expect(status, `${what}: ${text.slice(0, 300)}`).toBeLessThan(500);
  if (status < 400) return;
  const body = JSON.parse(text) as { error?: { code?: number; status?: string; message?: string } };
  expect(body.error?.code, what).toBe(status);
  expect(typeof body.error?.status, what).toBe("string");
  expect(typeof body.error?.message, what).toBe("string");
}

describe("the Gemini routes under hostile input", () => {
  it("any member of a Gemini CLI-like body replaced or removed, on each shape, streamed or not: never a 5xx, errors in Google's envelope", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...PATHS),
        json,
        fc.boolean(),
        fc.constantFrom("gemini-test", "gpt-test", "claude-test"),
        fc.constantFrom(":generateContent", ":streamGenerateContent?alt=sse", ":countTokens"),
        async (path, replacement, remove, model, method) => {
          const { status, text } = await send(`/v1beta/models/${model}${method}`, JSON.stringify(replaced(path, replacement, remove)));
          expectGoogleError(status, text, `${model}${method} ${path.join(".")}`);
        },
      ),
      { numRuns: 150 },
    );
  });

  it("broken JSON, a body that is not an object, unknown methods and models, no key: Google's envelope with the right status", async () => {
    for (const [path, body, headers, status] of [
      ["/v1beta/models/gemini-test:generateContent", "{", undefined, 400],
      ["/v1beta/models/gemini-test:generateContent", "[]", undefined, 400],
      ["/v1beta/models/gemini-test:generateContent", '"text"', undefined, 400],
      ["/v1beta/models/no-such:generateContent", JSON.stringify(VALID), undefined, 404],
      ["/v1beta/models/%ZZ:generateContent", JSON.stringify(VALID), undefined, 404],
      ["/v1beta/models/gemini-test:generateContent", JSON.stringify(VALID), {}, 400],
      ["/v1beta/models/gemini-test:generateContent", JSON.stringify(VALID), { "x-goog-api-key": "sk-nope" }, 400],
      ["/v1beta/models/gemini-embedding-test:embedContent", JSON.stringify({ content: { parts: [] } }), undefined, 400],
      ["/v1beta/models/gemini-embedding-test:batchEmbedContents", JSON.stringify({ requests: "x" }), undefined, 400],
      ["/v1beta/models/claude-test:embedContent", JSON.stringify({ content: { parts: [{ text: "x" }] } }), undefined, 400],
    ] as const) {
      const { status: got, text } = await send(path, body, headers ?? { "x-goog-api-key": key });
      expect(got, `${path} ${body.slice(0, 40)}: ${text}`).toBe(status);
      expectGoogleError(got, text, path);
    }
    // An unknown method is not a Gemini route: the gateway's own 404 envelope.
    const unknown = await send("/v1beta/models/gemini-test:explode", "{}");
    expect(unknown.status).toBe(404);
  });
});
