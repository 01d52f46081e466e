import { EMPTY_USAGE, GatewayError, type Usage } from "@gateway/contracts";
import type { EventSourceMessage } from "eventsource-parser";
import type { ParsedRequest, RouteFacts, StreamTracker, WireFormat } from "../../core/wire-format.ts";
import { asRecord, invalidField, optionalFiniteNumber, optionalPositiveInteger, tryJson } from "../../core/request-fields.ts";
import { dataIncludes, dataStartsWith, Probe } from "../../core/sse.ts";
import { list } from "../../core/fields.ts";
import { geminiUsage } from "./usage.ts";
import { geminiStreamErrorEvent } from "./errors.ts";

/*
 * The Gemini API's wire (generativelanguage.googleapis.com, `v1beta`; shared/notes/wire-gemini-...
 * section 1): the model and the method are in the URL, never in the body, so `parse` takes them
 * from the route and the upstream path names the upstream's model. Same shape, the client's bytes
 * go upstream as they came unless the output bound changes `generationConfig.maxOutputTokens`.
 */

/** The model as the URL names it: `gemini-2.5-flash` or `models/gemini-2.5-flash` (the SDKs' `tModel`). */
export function bareModel(name: string): string {
  return name.startsWith("models/") ? name.slice("models/".length) : name;
}

function routeOf(body: Record<string, unknown>, route: RouteFacts | undefined): RouteFacts {
  if (route) return route;
  // Only tests call a Gemini wire without its route: the body's own `model` then.
  if (typeof body.model !== "string" || body.model.length === 0) throw invalidField("model", "expected the model in the URL: /v1beta/models/{model}:generateContent");
  return { model: bareModel(body.model), stream: false };
}

function bodyRecord(body: unknown): Record<string, unknown> {
  const record = asRecord(body);
  if (!record) throw new GatewayError("invalid_body", "The request body must be a JSON object.");
  return record;
}

/** `contents`: a non-empty list of `{role?, parts: [...]}`. */
function checkContents(value: unknown, field: string): void {
  if (!Array.isArray(value) || value.length === 0) throw invalidField(field, "expected a non-empty array of contents");
  for (let index = 0; index < value.length; index += 1) {
    const content = asRecord(value[index]);
    if (!content || !Array.isArray(content.parts)) throw invalidField(`${field}[${index}].parts`, "expected an array of parts");
    if (content.role !== undefined && content.role !== "user" && content.role !== "model") throw invalidField(`${field}[${index}].role`, "expected user or model");
  }
}

/** The numbers of `generationConfig` the gateway reads or may re-serialise: range-checked here (contract section 14). */
function checkGenerationConfig(body: Record<string, unknown>): void {
  const config = body.generationConfig;
  if (config === undefined || config === null) return;
  const record = asRecord(config);
  if (!record) throw invalidField("generationConfig", "expected an object");
  optionalPositiveInteger(record, "maxOutputTokens");
  optionalPositiveInteger(record, "candidateCount", 8);
  for (const field of ["temperature", "topP", "topK", "seed", "presencePenalty", "frequencyPenalty"]) optionalFiniteNumber(record, field);
}

/** A generateContent body: `contents`, and the numbers of `generationConfig`; the rest is Google's to judge. */
export function parseGenerateContent(body: unknown, route?: RouteFacts): ParsedRequest {
  const record = bodyRecord(body);
  const facts = routeOf(record, route);
  checkContents(record.contents, "contents");
  checkGenerationConfig(record);
  return { body: record, model: facts.model, stream: facts.stream };
}

/**
 * The same-shape upstream body: the client's unless the output bound differs from the
 * `maxOutputTokens` it set (then exactly the bound there); a client that set none runs under the
 * model's own default, which is the bound. Never a model field: Gemini's is in the URL.
 */
function boundedGeminiBody(request: ParsedRequest): Record<string, unknown> | null {
  const bound = request.outputBound;
  const config = asRecord(request.body.generationConfig);
  if (bound === undefined || bound === 0 || config === null || config.maxOutputTokens === undefined || config.maxOutputTokens === bound) return null;
  return { ...request.body, generationConfig: { ...config, maxOutputTokens: bound } };
}

const ERROR_START = new Probe('{"error"');
const FINISH_REASON = new Probe('"finishReason"');
const BLOCK_REASON = new Probe('"blockReason"');

/**
 * Watches a Gemini stream (`?alt=sse`): each event one GenerateContentResponse repeating the running
 * `usageMetadata`; whole at a `finishReason` (or a prompt's `blockReason`), which carries the last
 * usage. Only that event is parsed on the relay's path; an earlier usage is read from the last event
 * seen, and only when an estimate needs it.
 */
class GeminiStreamTracker implements StreamTracker {
  complete = false;
  private captured: Usage | null = null;
  private last: EventSourceMessage | null = null;

  observe(event: EventSourceMessage): boolean {
    if (dataIncludes(event, FINISH_REASON) || dataIncludes(event, BLOCK_REASON)) {
      const chunk = asRecord(tryJson(event.data));
      const usage = geminiUsage(chunk?.usageMetadata);
      if (usage) this.captured = usage;
      if (chunk?.promptFeedback !== undefined || list(chunk?.candidates).some((candidate) => typeof asRecord(candidate)?.finishReason === "string")) this.complete = true;
    } else if (!this.complete) {
      this.last = event;
    }
    return true;
  }

  isError(event: EventSourceMessage): boolean {
    return dataStartsWith(event, ERROR_START) && asRecord(tryJson(event.data))?.error !== undefined;
  }

  usage(): Usage | null {
    return this.complete ? this.captured : null;
  }

  reported(): Usage | null {
    if (this.captured !== null) return this.captured;
    return this.last === null ? null : geminiUsage(asRecord(tryJson(this.last.data))?.usageMetadata);
  }

  outputText(event: EventSourceMessage): string {
    return geminiOutputText(tryJson(event.data));
  }
}

/** The output text of one GenerateContentResponse: text and thoughts, function names and arguments. */
export function geminiOutputText(value: unknown): string {
  let text = "";
  for (const candidate of list(asRecord(value)?.candidates)) {
    for (const raw of list(asRecord(asRecord(candidate)?.content)?.parts)) {
      const part = asRecord(raw);
      if (typeof part?.text === "string") text += part.text;
      const call = asRecord(part?.functionCall);
      if (call) text += String(call.name ?? "") + JSON.stringify(call.args ?? {});
    }
  }
  return text;
}

/** A stream's final error event: 401 for a key refused mid-stream, else a 500 (the upstream failed). */
function streamErrorEvent(message: string, code: string, _sequenceNumber: number, type = "api_error"): string {
  return geminiStreamErrorEvent(message, code, type === "authentication_error" ? 401 : type === "permission_error" ? 403 : 500);
}

/** POST /v1beta/models/{model}:generateContent and :streamGenerateContent?alt=sse */
export const generateContent: WireFormat = {
  endpoint: "gemini.generate_content",
  shape: "gemini",
  upstreamPath: "/models/{model}:generateContent",
  pathFor: (model, stream) => (stream ? `/models/${model}:streamGenerateContent?alt=sse` : `/models/${model}:generateContent`),
  parse: parseGenerateContent,
  upstreamBody: boundedGeminiBody,
  usageFromResponse: (body) => geminiUsage(asRecord(body)?.usageMetadata),
  createStreamTracker: () => new GeminiStreamTracker(),
  streamErrorEvent,
};

/**
 * POST /v1beta/models/{model}:countTokens: `{"contents":[...]}` or `{"generateContentRequest":{...}}`
 * (exclusive), answered `{"totalTokens": N}`. Never billed; the request form's own `model` names the
 * upstream's.
 */
export const countTokens: WireFormat = {
  endpoint: "gemini.count_tokens",
  shape: "gemini",
  upstreamPath: "/models/{model}:countTokens",
  pathFor: (model) => `/models/${model}:countTokens`,
  parse(body, route) {
    const record = bodyRecord(body);
    const facts = routeOf(record, route);
    const nested = record.generateContentRequest;
    if (nested !== undefined && nested !== null) {
      if (record.contents !== undefined) throw invalidField("contents", "contents and generateContentRequest are exclusive");
      const inner = asRecord(nested);
      if (!inner) throw invalidField("generateContentRequest", "expected an object");
      checkContents(inner.contents, "generateContentRequest.contents");
    } else {
      checkContents(record.contents, "contents");
    }
    return { body: record, model: facts.model, stream: false };
  },
  upstreamBody(request, upstreamModel) {
    const nested = asRecord(request.body.generateContentRequest);
    if (!nested || nested.model === undefined) return null;
    return { ...request.body, generateContentRequest: { ...nested, model: `models/${upstreamModel}` } };
  },
  usageFromResponse: () => EMPTY_USAGE,
  createStreamTracker() {
    throw new Error("countTokens has no stream");
  },
  streamErrorEvent: () => "",
};

/** The most requests one batchEmbedContents takes (Google's documented limit). */
const MAX_BATCH = 100;

function checkEmbedRequest(value: unknown, field: string): void {
  const request = asRecord(value);
  if (!request) throw invalidField(field, "expected an object");
  const content = asRecord(request.content);
  if (!content || !Array.isArray(content.parts) || content.parts.length === 0) throw invalidField(`${field}.content.parts`, "expected a non-empty array of parts");
  optionalPositiveInteger(request, "outputDimensionality");
}

/** The texts an embedding request embeds, one per request (its parts' texts joined): the OpenAI-shape `input`. */
export function embedTexts(request: ParsedRequest): string[] {
  const requests = Array.isArray(request.body.requests) ? request.body.requests : [request.body];
  return requests.map((item) =>
    list(asRecord(asRecord(item)?.content)?.parts)
      .map((part) => asRecord(part)?.text)
      .filter((text): text is string => typeof text === "string")
      .join("\n"),
  );
}

/**
 * POST /v1beta/models/{model}:embedContent (`{"content":{...}}` -> `{"embedding":{"values":[...]}}`)
 * and :batchEmbedContents (`{"requests":[{"model","content"}...]}` -> `{"embeddings":[...]}`, what
 * `@google/genai` calls). One endpoint, billed at the input price; Google reports no usage for
 * them, so the input is estimated from the request.
 */
function embedWire(batch: boolean): WireFormat {
  return {
    endpoint: "gemini.embed_content",
    shape: "gemini",
    upstreamPath: batch ? "/models/{model}:batchEmbedContents" : "/models/{model}:embedContent",
    pathFor: (model) => `/models/${model}:${batch ? "batchEmbedContents" : "embedContent"}`,
    parse(body, route) {
      const record = bodyRecord(body);
      const facts = routeOf(record, route);
      if (batch) {
        if (!Array.isArray(record.requests) || record.requests.length === 0) throw invalidField("requests", "expected a non-empty array of embedding requests");
        if (record.requests.length > MAX_BATCH) throw invalidField("requests", `expected at most ${MAX_BATCH} requests`);
        record.requests.forEach((item, index) => checkEmbedRequest(item, `requests[${index}]`));
      } else {
        checkEmbedRequest(record, "body");
      }
      return { body: record, model: facts.model, stream: false };
    },
    upstreamBody(request, upstreamModel) {
      if (!batch) return request.body.model === undefined ? null : { ...request.body, model: `models/${upstreamModel}` };
      const model = `models/${upstreamModel}`;
      const requests = request.body.requests as unknown[];
      if (requests.every((item) => asRecord(item)?.model === model)) return null;
      return { ...request.body, requests: requests.map((item) => ({ ...asRecord(item), model })) };
    },
    usageFromResponse: () => null,
    createStreamTracker() {
      throw new Error("embeddings have no stream");
    },
    streamErrorEvent: () => "",
  };
}

export const embedContent = embedWire(false);
export const batchEmbedContents = embedWire(true);
