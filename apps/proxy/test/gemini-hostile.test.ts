import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import type { Stack } from "./stack.ts";
import { startGeminiStack } from "./gemini-stack.ts";

/**
 * Hostile and fuzzed input on the Gemini routes: bodies built from a valid generateContent request
 * with any member replaced by any JSON value (Gemini CLI's own request shape: tools, toolConfig,
 * generationConfig with thinking and a JSON schema, function calls and responses), sent to a
 * Gemini-shape model (relayed) and to OpenAI- and Anthropic-shape models (read by the neutral core),
 * streamed or not; unknown methods and models, broken JSON, no key. Never a 5xx, and every error is
 * Google's envelope with the HTTP status as its code.
 */
let stack: Stack;
let key: string;

beforeAll(async () => {
  ({ stack, key } = await startGeminiStack());
});
afterAll(async () => stack?.close());

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
