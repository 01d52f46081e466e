import { describe, expect, it } from "vitest";
import { DroppedParams } from "../../core/drops.ts";
import { PartStream } from "../../core/pipeline.ts";
import type { StreamWriter } from "../../core/stream-parts.ts";
import { ChatStreamWriter } from "../openai-chat/writer/stream.ts";
import { geminiUsage, geminiUsageMetadata } from "./usage.ts";
import { finishFromGemini } from "./finish.ts";
import { answerFromGemini } from "./reader/response.ts";
import { GeminiStreamReader } from "./reader/stream.ts";
import { GeminiStreamWriter } from "./writer/stream.ts";
import { readRequest } from "./reader/request.ts";
import { SKIP_SIGNATURE, writeRequest } from "./writer/request.ts";
import { accepts } from "./writer/accepts.ts";
import { jsonSchemaFromGoogle } from "./schema.ts";

const sse = (body: unknown) => ({ data: JSON.stringify(body) });

describe("Gemini usage and finish", () => {
  it("usageMetadata: prompt includes the cached part and tool-use prompt; thoughts are output and reasoning", () => {
    // A live recording's numbers: 12 prompt, 60 candidates, 82 thoughts, 65 tool-use prompt, 5 cached.
    const usage = geminiUsage({ promptTokenCount: 12, candidatesTokenCount: 60, thoughtsTokenCount: 82, toolUsePromptTokenCount: 65, cachedContentTokenCount: 5, totalTokenCount: 219 });
    expect(usage).toEqual({ inputTokens: 77, outputTokens: 142, cachedInputTokens: 5, cacheWriteTokens: 0, cacheWrite1hTokens: 0, reasoningTokens: 82, images: 0, webSearchRequests: 0 });
    expect(geminiUsageMetadata(usage!)).toEqual({ promptTokenCount: 77, candidatesTokenCount: 60, totalTokenCount: 219, cachedContentTokenCount: 5, thoughtsTokenCount: 82 });
  });

  it("finish: STOP after a function call is tool-calls; filters are filtered; anything else other, raw kept", () => {
    expect(finishFromGemini("STOP", false)).toEqual({ reason: "stop", raw: "STOP" });
    expect(finishFromGemini("STOP", true)).toEqual({ reason: "tool-calls", raw: "STOP" });
    expect(finishFromGemini("MAX_TOKENS", false)?.reason).toBe("length");
    expect(finishFromGemini("RECITATION", false)).toEqual({ reason: "filtered", raw: "RECITATION" });
    expect(finishFromGemini("MALFORMED_FUNCTION_CALL", false)).toEqual({ reason: "other", raw: "MALFORMED_FUNCTION_CALL" });
  });
});

describe("Gemini answers and streams into other shapes", () => {
  it("a prompt blocked before any candidate (HTTP 200, one event) is a chat content_filter with its usage", () => {
    const stream = new PartStream(new ChatStreamWriter(true), (sink) => new GeminiStreamReader(sink));
    let out = stream.push(sse({ promptFeedback: { blockReason: "PROHIBITED_CONTENT" }, usageMetadata: { promptTokenCount: 9, totalTokenCount: 9 }, modelVersion: "gemini-3", responseId: "r1" }) as never);
    out += stream.finish();
    const chunks = out.split("\n\n").filter((frame) => frame.startsWith("data: {")).map((frame) => JSON.parse(frame.slice(6)));
    expect(chunks.some((chunk) => chunk.choices?.[0]?.finish_reason === "content_filter")).toBe(true);
    expect(chunks.at(-1).usage).toMatchObject({ prompt_tokens: 9, completion_tokens: 0 });
    expect(answerFromGemini({ promptFeedback: { blockReason: "SAFETY" } }).finish).toEqual({ reason: "filtered", raw: "SAFETY" });
  });

  it("a function call arrives whole: one tool call with its arguments, then tool_calls; thoughts are reasoning", () => {
    const stream = new PartStream(new ChatStreamWriter(false), (sink) => new GeminiStreamReader(sink));
    let out = stream.push(sse({ candidates: [{ content: { role: "model", parts: [{ text: "hmm", thought: true }] } }] }) as never);
    out += stream.push(sse({ candidates: [{ content: { role: "model", parts: [{ functionCall: { name: "f", args: { a: 1 } } }, { functionCall: { name: "f", args: { a: 2 } } }] }, finishReason: "STOP" }] }) as never);
    out += stream.finish();
    const deltas = out.split("\n\n").filter((frame) => frame.startsWith("data: {")).map((frame) => JSON.parse(frame.slice(6)).choices[0]);
    expect(deltas.some((choice) => choice.delta.reasoning_content === "hmm")).toBe(true);
    const calls = deltas.flatMap((choice) => choice.delta.tool_calls ?? []).filter((call: { id?: string }) => call.id);
    // Two calls of one tool: two random ids, never derived from the name.
    expect(calls).toHaveLength(2);
    expect(calls[0].id).not.toBe(calls[1].id);
    expect(deltas.at(-1).finish_reason).toBe("tool_calls");
  });

  it("the Gemini stream writer holds one chunk back: only the last carries finishReason and usage", () => {
    const writer: StreamWriter = new GeminiStreamWriter("gemini-test", false);
    writer.start({ id: "abc" });
    writer.textStart("t");
    writer.textDelta("t", "Hel");
    writer.textDelta("t", "lo");
    writer.textEnd("t");
    writer.usage({ inputTokens: 3, outputTokens: 2, cachedInputTokens: 0, cacheWriteTokens: 0, cacheWrite1hTokens: 0, reasoningTokens: 0, images: 0, webSearchRequests: 0 });
    writer.finish({ reason: "length", raw: "length" });
    writer.end();
    const frames = writer.take().split("\n\n").filter(Boolean).map((frame) => JSON.parse(frame.slice(6)));
    expect(frames).toHaveLength(2);
    expect(frames[0].candidates[0].finishReason).toBeUndefined();
    expect(frames[1]).toMatchObject({ candidates: [{ content: { role: "model", parts: [{ text: "lo" }] }, finishReason: "MAX_TOKENS" }], usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 2, totalTokenCount: 5 }, modelVersion: "gemini-test", responseId: "abc" });
  });
});

describe("Gemini requests through the neutral request", () => {
  const read = (body: Record<string, unknown>, strict = false) => readRequest(body, { drops: new DroppedParams(strict), accepts, outputBound: 100 });

  it("a round trip keeps what Gemini says: instructions, turns, a call with its signature, its response by name, tools, choice, schema, thinking", () => {
    const body = {
      systemInstruction: { parts: [{ text: "Be brief." }] },
      contents: [
        { role: "user", parts: [{ text: "hi" }] },
        { role: "model", parts: [{ functionCall: { id: "c1", name: "f", args: { a: 1 } }, thoughtSignature: "sig" }] },
        { role: "user", parts: [{ functionResponse: { id: "c1", name: "f", response: { ok: true } } }] },
      ],
      tools: [{ functionDeclarations: [{ name: "f", parametersJsonSchema: { type: "object" } }] }],
      toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["f"] } },
      generationConfig: { maxOutputTokens: 100, temperature: 1.5, responseMimeType: "application/json", responseJsonSchema: { type: "OBJECT", properties: { a: { type: "STRING", nullable: true } } }, thinkingConfig: { thinkingBudget: 2048, includeThoughts: true } },
    };
    const drops = new DroppedParams(false);
    const written = writeRequest(read(body), { drops, outputBound: 100 });
    expect(written).toEqual({
      contents: body.contents,
      systemInstruction: { parts: [{ text: "Be brief." }] },
      tools: [{ functionDeclarations: [{ name: "f", parametersJsonSchema: { type: "object" } }] }],
      toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["f"] } },
      generationConfig: { maxOutputTokens: 100, temperature: 1.5, responseMimeType: "application/json", responseJsonSchema: { type: "object", properties: { a: { type: ["string", "null"] } } }, thinkingConfig: { thinkingBudget: 2048, includeThoughts: true } },
    });
    expect(drops.paths).toEqual([]);
  });

  it("a call another provider made gets Google's skip signature on the model turn's first call only", () => {
    const request = read({ contents: [{ role: "user", parts: [{ text: "hi" }] }, { role: "model", parts: [{ functionCall: { name: "f", args: {} } }, { functionCall: { name: "g", args: {} } }] }] });
    const parts = (writeRequest(request, { drops: new DroppedParams(false), outputBound: 10 }).contents as Array<{ parts: Array<Record<string, unknown>> }>)[1]!.parts;
    expect(parts[0]!.thoughtSignature).toBe(SKIP_SIGNATURE);
    expect(parts[1]!.thoughtSignature).toBeUndefined();
  });

  it("refuses what changes the answer (a cached content, code execution, a non-text answer) naming the field; drops safety settings, listed", () => {
    const contents = [{ role: "user", parts: [{ text: "hi" }] }];
    expect(() => read({ contents, cachedContent: "cachedContents/x" })).toThrow(/cachedContent/);
    expect(() => read({ contents, tools: [{ codeExecution: {} }] })).toThrow(/tools\[0\]\.codeExecution/);
    expect(() => read({ contents, generationConfig: { responseModalities: ["IMAGE"] } })).toThrow(/responseModalities/);
    expect(() => read({ contents, unknownThing: 1 })).toThrow(/unknownThing/);
    const drops = new DroppedParams(false);
    readRequest({ contents, safetySettings: [{ category: "HARM_CATEGORY_HARASSMENT", threshold: "BLOCK_NONE" }] }, { drops, accepts, outputBound: 10 });
    expect(drops.paths).toEqual(["safetySettings"]);
    expect(() => read({ contents, safetySettings: [] }, true)).toThrow(/strict_params/);
  });

  it("Google's OpenAPI schema as JSON Schema: types lower-cased, nullable as a null type, nested", () => {
    expect(jsonSchemaFromGoogle({ type: "ARRAY", items: { type: "OBJECT", properties: { n: { type: "INTEGER", nullable: true } }, propertyOrdering: ["n"] } })).toEqual({ type: "array", items: { type: "object", properties: { n: { type: ["integer", "null"] } } } });
  });
});
