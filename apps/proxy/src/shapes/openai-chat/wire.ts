import type { EventSourceMessage } from "eventsource-parser";
import type { Usage } from "@gateway/contracts";
import type { ParsedRequest, StreamTracker, WireFormat } from "../../core/wire-format.ts";
import { asRecord, optionalFiniteNumber, optionalInteger, optionalPositiveInteger, parseRequestFields, tryJson } from "../../core/request-fields.ts";
import { dataEndsWith, dataIncludes, dataIs, dataStartsWith, Probe, sseFrame } from "../../core/sse.ts";
import { chatUsage } from "./usage.ts";
import { boundedBody } from "../../core/output-bound.ts";

function clientAskedForUsage(request: ParsedRequest): boolean {
  return asRecord(request.body.stream_options)?.include_usage === true;
}

const DONE = new Probe("[DONE]");
const USAGE_OBJECT = new Probe('"usage":{');
const USAGE_NULL_LAST = new Probe('"usage":null}');
const ERROR_START = new Probe('{"error"');

class ChatStreamTracker implements StreamTracker {
  complete = false;
  private captured: Usage | null = null;
  /**
   * The captured usage is the final one: it came on OpenAI's own usage chunk (no choices, after the
   * last content), or the stream ended. A usage on a chunk with choices may be an upstream's running
   * count (some report one on every chunk): final only at `[DONE]`, an estimate's floor until then.
   */
  private final = false;
  private readonly showUsage: boolean;

  constructor(showUsage: boolean) {
    this.showUsage = showUsage;
  }

  observe(event: EventSourceMessage): boolean {
    if (dataIs(event, DONE)) {
      this.complete = true;
      this.final = this.captured !== null;
      return true;
    }
    // Only chunks that carry a usage object are parsed (the others are not even decoded when they
    // came as bytes); some upstreams put it on a chunk with choices, so the last non-null usage on
    // any chunk wins (LiteLLM #36168). With usage asked for (the upstream always is), every chunk
    // before the last ends `"usage":null}`: the object's own last member (a nested object would
    // end `}}`), so its usage is null whatever else it holds, and it is not searched.
    if (dataEndsWith(event, USAGE_NULL_LAST) || !dataIncludes(event, USAGE_OBJECT)) return true;
    const chunk = asRecord(tryJson(event.data));
    const usage = chatUsage(chunk?.usage);
    const usageOnly = Array.isArray(chunk?.choices) && chunk.choices.length === 0;
    if (usage) {
      this.captured = usage;
      this.final = usageOnly;
    }
    return this.showUsage || !usageOnly;
  }

  isError(event: EventSourceMessage): boolean {
    return event.event === "error" || (dataStartsWith(event, ERROR_START) && asRecord(tryJson(event.data))?.error !== undefined);
  }

  usage(): Usage | null {
    return this.final ? this.captured : null;
  }

  reported(): Usage | null {
    return this.captured;
  }

  outputText(event: EventSourceMessage): string {
    if (dataIs(event, DONE)) return "";
    const choices = asRecord(tryJson(event.data))?.choices;
    if (!Array.isArray(choices)) return "";
    let text = "";
    for (const choice of choices) {
      const delta = asRecord(asRecord(choice)?.delta);
      if (!delta) continue;
      // Reasoning some upstreams stream beside the answer (`reasoning_content`, `reasoning`) is output too.
      for (const part of [delta.content, delta.reasoning_content, delta.reasoning, delta.refusal]) if (typeof part === "string") text += part;
      if (!Array.isArray(delta.tool_calls)) continue;
      for (const call of delta.tool_calls) {
        const fn = asRecord(asRecord(call)?.function);
        if (typeof fn?.name === "string") text += fn.name;
        if (typeof fn?.arguments === "string") text += fn.arguments;
      }
    }
    return text;
  }
}

/** OpenAI's own bounds on `n` and `top_logprobs` (https://platform.openai.com/docs/api-reference/chat/create). */
const MAX_CHOICES = 128;
const MAX_TOP_LOGPROBS = 20;
/** Numbers the gateway never reads but may re-serialise: only finiteness is its business, the values the provider's. */
const FINITE_NUMBERS = ["temperature", "top_p", "presence_penalty", "frequency_penalty", "seed"] as const;

/**
 * What the gateway must read of a Chat Completions body, and no more (contract section 15: same
 * shape, the provider decides): the model, `messages` as a list, `stream` as a boolean, and the
 * numbers of section 14. Roles, content parts and fields it does not know pass untouched.
 */
function parseChatRequest(body: unknown): ParsedRequest {
  const request = parseRequestFields(body, ["model", "messages"]);
  const record = request.body;
  // Every number that may reach arithmetic (the output bound, choices) or the upstream re-serialised
  // (where Infinity would silently become null) is range-checked here (contract section 14).
  optionalPositiveInteger(record, "n", MAX_CHOICES);
  optionalPositiveInteger(record, "max_tokens");
  optionalPositiveInteger(record, "max_completion_tokens");
  for (const field of FINITE_NUMBERS) optionalFiniteNumber(record, field);
  optionalInteger(record, "top_logprobs", 0, MAX_TOP_LOGPROBS);
  return request;
}

export const chatCompletions: WireFormat = {
  endpoint: "chat.completions",
  shape: "openai",
  upstreamPath: "/chat/completions",
  parse: parseChatRequest,
  upstreamBody(request, upstreamModel) {
    // Exactly the output bound in one field (null when the client's body already says it).
    const bounded = boundedBody(request.body, "chat.completions", request.outputBound);
    const sameModel = request.body.model === upstreamModel;
    // Always ask for usage so billing never guesses; the client sees it only if it asked.
    const streamOptions = request.stream ? asRecord(request.body.stream_options) : null;
    const usageAsked = !request.stream || streamOptions?.include_usage === true;
    if (sameModel && usageAsked) return bounded;
    const body = bounded ?? { ...request.body };
    body.model = upstreamModel;
    if (!usageAsked) body.stream_options = { ...streamOptions, include_usage: true };
    return body;
  },
  usageFromResponse: (body) => chatUsage(asRecord(body)?.usage),
  createStreamTracker: (request) => new ChatStreamTracker(clientAskedForUsage(request)),
  streamErrorEvent: (message, code, _sequenceNumber, type = "api_error") =>
    sseFrame(JSON.stringify({ error: { type, message, code, param: null } })),
};
