import type { EventSourceMessage } from "eventsource-parser";
import type { Usage } from "@gateway/contracts";
import type { ParsedRequest, StreamTracker, WireFormat } from "../../core/wire-format.ts";
import { asRecord, optionalFiniteNumber, optionalInteger, optionalPositiveInteger, parseRequestFields, requirePositiveInteger, tryJson } from "../../core/request-fields.ts";
import { sseFrame } from "../../core/sse.ts";
import { boundedUpstreamBody } from "../../core/output-bound.ts";
import { messagesUsage } from "./usage.ts";

class MessagesStreamTracker implements StreamTracker {
  complete = false;
  private captured: Usage | null = null;
  /** A `message_delta` came: its cumulative usage is the final one (a `message_start`'s is not). */
  private final = false;

  observe(event: EventSourceMessage): boolean {
    switch (event.event) {
      case "message_start":
        // Input and cache counts, and an output count of one or so: partial, an estimate's floor only.
        this.captured = messagesUsage(asRecord(asRecord(tryJson(event.data))?.message)?.usage, this.captured);
        break;
      case "message_delta":
        // Cumulative: the delta's fields replace what message_start said; never add them up.
        this.captured = messagesUsage(asRecord(tryJson(event.data))?.usage, this.captured);
        this.final = this.captured !== null;
        break;
      case "message_stop":
        this.complete = true;
        break;
      default:
        break;
    }
    return true;
  }

  isError(event: EventSourceMessage): boolean {
    return event.event === "error";
  }

  usage(): Usage | null {
    return this.final ? this.captured : null;
  }

  reported(): Usage | null {
    return this.captured;
  }

  outputText(event: EventSourceMessage): string {
    if (event.event !== "content_block_delta") return "";
    const delta = asRecord(asRecord(tryJson(event.data))?.delta);
    const text = delta?.text ?? delta?.partial_json ?? delta?.thinking;
    return typeof text === "string" ? text : "";
  }
}

/**
 * What the gateway must read of a Messages body, and no more (contract section 15: same shape, the
 * provider decides): the model, `messages` as a list, `stream` as a boolean, and every number that
 * may reach arithmetic (the output bound, the thinking budget) or be re-serialised (section 14).
 * Roles (a mid-conversation `system`), content blocks and fields it does not know pass untouched:
 * Anthropic judges them. A token count (`/v1/messages/count_tokens`) is the same body without
 * `max_tokens`.
 */
export function parseMessagesBody(body: unknown, requireMaxTokens: boolean): ParsedRequest {
  const request = parseRequestFields(body, requireMaxTokens ? ["model", "max_tokens", "messages"] : ["model", "messages"]);
  if (requireMaxTokens) requirePositiveInteger(request.body, "max_tokens");
  // A count's max_tokens, if sent, is checked as well.
  else optionalPositiveInteger(request.body, "max_tokens");
  optionalInteger(asRecord(request.body.thinking), "budget_tokens", 1, Number.MAX_SAFE_INTEGER, "thinking.budget_tokens");
  optionalInteger(request.body, "top_k", 0);
  optionalFiniteNumber(request.body, "temperature");
  optionalFiniteNumber(request.body, "top_p");
  return request;
}

export const messages: WireFormat = {
  endpoint: "messages",
  shape: "anthropic",
  upstreamPath: "/v1/messages",
  parse: (body) => parseMessagesBody(body, true),
  // The upstream's model name and exactly the output bound; the client's bytes when both are as sent.
  upstreamBody: (request, upstreamModel) => boundedUpstreamBody(request, "messages", upstreamModel),
  usageFromResponse: (body) => messagesUsage(asRecord(body)?.usage),
  createStreamTracker: () => new MessagesStreamTracker(),
  // The code rides along only when it says more than the type (`key_revoked`); the SDK reads type and message.
  streamErrorEvent: (message, code, _sequenceNumber, type = "api_error") =>
    sseFrame(JSON.stringify({ type: "error", error: code === "upstream_error" ? { type, message } : { type, message, code } }), "error"),
};
