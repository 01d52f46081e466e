import type { ServerResponse } from "node:http";
import { GatewayError } from "@gateway/contracts";
import { addHead, sendJson, type GatewayRequest } from "@gateway/http";
import type { KeyRecord, UpstreamRecord } from "@gateway/redis-store";
import type { ProxyServices } from "../services.ts";
import { DroppedParams } from "../core/drops.ts";
import type { Translation } from "../core/pipeline.ts";
import { asRecord } from "../core/request-fields.ts";
import type { ParsedRequest, RouteFacts } from "../core/wire-format.ts";
import { translationFor } from "../shapes/index.ts";
import { WIRE_FORMATS } from "../shapes/wire-formats.ts";
import { countTokens, generateContent } from "../shapes/gemini/wire.ts";
import { geminiCountText } from "../shapes/gemini/reader/request.ts";
import { encodingForModel } from "../tokens/count-tokens.ts";
import { allowedModel } from "./relay-route.ts";
import { forward } from "./v1-count-tokens.ts";

/**
 * countTokens: forwarded to the model's Gemini-shape targets in order (failover, the upstream's
 * bytes back); else to its Anthropic-shape targets as a `/v1/messages/count_tokens` body (the
 * request read and written as generateContent would reach them), Anthropic's `input_tokens` back as
 * `totalTokens`. A model served by another shape (OpenAI), or whose forwarded counts all failed, is
 * counted here (its texts, with the model family's tokenizer, on a worker thread), as
 * /v1/messages/count_tokens counts OpenAI-shape models. Never billed: one slot of the key's
 * requests per minute, refused like any request of a spent key.
 */
export async function countGeminiTokens(services: ProxyServices, request: GatewayRequest, response: ServerResponse, key: KeyRecord, route: RouteFacts): Promise<void> {
  const parsed = countTokens.parse(request.body, route);
  const { model, option } = allowedModel(services, key, parsed.model);
  const targets = services.routing.order(model, services.breaker);
  const admission = await services.limiter.admitRequestOnly(request.requestId, key, option);
  for (const name in admission.headers) addHead(response, name, admission.headers[name]!);
  if (admission.refusal) throw admission.refusal;
  const gemini = targets.filter((target) => target.upstream.shape === "gemini");
  const anthropic = gemini.length > 0 ? [] : targets.filter((target) => target.upstream.shape === "anthropic");
  if (gemini.length > 0 || anthropic.length > 0) {
    const traceparent = services.tracing.start(request.requestId, countTokens.endpoint, model.name, request.headers);
    let failure: unknown = null;
    try {
      // As /v1/messages/count_tokens forwards to Anthropic-shape targets: the client's bytes, failover, never billed.
      if (gemini.length > 0) {
        const rawBody = countTokens.upstreamBody(parsed, gemini[0]!.model) === null ? request.rawBody : null;
        if (await forward(services, request, response, parsed, rawBody, model.name, gemini, traceparent, targets.length > gemini.length, countTokens)) return;
      } else {
        // Their own count, in Messages form; every attempt failed: counted here (fallback).
        const counted = messagesCountRequest(parsed, anthropic[0]!.upstream);
        if (await forward(services, request, response, counted, null, model.name, anthropic, traceparent, true, MESSAGES_COUNT_TO_GEMINI.upstreamWire, MESSAGES_COUNT_TO_GEMINI)) return;
      }
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      services.tracing.release(request.requestId, failure);
    }
  }
  if (request.bodyBytes > services.config.TOKEN_COUNT_MAX_BYTES) {
    throw new GatewayError("request_too_large", `Token counting for ${model.name} takes request bodies up to ${services.config.TOKEN_COUNT_MAX_BYTES} bytes.`);
  }
  const totalTokens = await services.tokenCounter.countText(geminiCountText(parsed.body), encodingForModel(targets[0]?.model ?? model.name));
  sendJson(response, 200, { totalTokens });
}

/** What `/v1/messages/count_tokens` takes of a Messages body: no `max_tokens`, nothing that only tunes the answer. */
const COUNTED_FIELDS = ["model", "messages", "system", "tools", "tool_choice"] as const;

/**
 * A Gemini countTokens body (`{contents}`, or `{generateContentRequest: {contents, systemInstruction,
 * tools, generationConfig}}`) as the `/v1/messages/count_tokens` body of an Anthropic-shape
 * `upstream`: read by the Gemini reader and written by the Messages writer, as generateContent
 * reaches that upstream (a field it cannot express is the same 400), then cut to what the count
 * takes. The model is the route's; `forward` puts the target's in.
 */
function messagesCountRequest(parsed: ParsedRequest, upstream: UpstreamRecord): ParsedRequest {
  const translation = translationFor(generateContent.endpoint, upstream);
  if (!translation) throw new Error(`a ${upstream.shape}-shape upstream serves Gemini requests as they are`);
  const nested = asRecord(parsed.body.generateContentRequest);
  const { model: _named, ...request } = nested ?? { contents: parsed.body.contents };
  // The count asks for no answer: no output bound, and nothing dropped is listed (it is not sent).
  const written = translation.request({ body: request, model: parsed.model, stream: false, outputBound: undefined }, new DroppedParams(false)).body;
  const body: Record<string, unknown> = {};
  for (const field of COUNTED_FIELDS) if (written[field] !== undefined) body[field] = written[field];
  return { body, model: parsed.model, stream: false };
}

/**
 * `forward`'s translation for that count: the request is already in Messages form; Anthropic's
 * `{"input_tokens": N}` goes back as Google's `{"totalTokens": N}` (the field `@google/genai`
 * reads; Anthropic gives no cached or per-modality split to fill Google's other fields with).
 */
const MESSAGES_COUNT_TO_GEMINI: Translation = {
  name: "gemini-to-messages-count",
  upstreamWire: WIRE_FORMATS["messages.count_tokens"],
  request: (parsed) => parsed,
  response(upstreamBody) {
    const counted = asRecord(upstreamBody)?.input_tokens;
    if (typeof counted !== "number") throw new Error("the upstream's token count has no input_tokens");
    return { totalTokens: counted };
  },
  stream() {
    throw new Error("a token count has no stream");
  },
};
