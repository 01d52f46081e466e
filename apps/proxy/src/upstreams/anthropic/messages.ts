import type { EventSourceMessage } from "eventsource-parser";
import type { Usage } from "@gateway/contracts";
import type { ParsedRequest, StreamTracker, WireFormat } from "../types.ts";
import { asRecord, checkContent, optionalStringOrArray, parseRequestFields, requireMessages, requirePositiveInteger, tryJson } from "../request-fields.ts";
import { sseFrame } from "../sse.ts";
import { messagesUsage } from "./usage.ts";

class MessagesStreamTracker implements StreamTracker {
  complete = false;
  contentEvents = 0;
  private captured: Usage | null = null;

  observe(event: EventSourceMessage): boolean {
    switch (event.event) {
      case "content_block_delta":
        this.contentEvents += 1;
        break;
      case "message_start":
        this.captured = messagesUsage(asRecord(asRecord(tryJson(event.data))?.message)?.usage, this.captured);
        break;
      case "message_delta":
        // Cumulative: the delta's fields replace what message_start said; never add them up.
        this.captured = messagesUsage(asRecord(tryJson(event.data))?.usage, this.captured);
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
    return this.captured;
  }
}

const MESSAGE_ROLES: ReadonlySet<string> = new Set(["user", "assistant"]);

/**
 * What Anthropic itself refuses with a 400 (https://docs.anthropic.com/en/api/messages). A token
 * count (`/v1/messages/count_tokens`) is the same body without `max_tokens`, and the same 400s.
 */
export function parseMessagesBody(body: unknown, requireMaxTokens: boolean): ParsedRequest {
  const request = parseRequestFields(body, requireMaxTokens ? ["model", "max_tokens", "messages"] : ["model", "messages"]);
  if (requireMaxTokens) requirePositiveInteger(request.body, "max_tokens");
  const messages = requireMessages(request.body, MESSAGE_ROLES);
  for (let index = 0; index < messages.length; index += 1) checkContent(messages[index]!.content, `messages.${index}.content`);
  optionalStringOrArray(request.body, "system");
  return request;
}

export const messages: WireFormat = {
  endpoint: "messages",
  shape: "anthropic",
  upstreamPath: "/v1/messages",
  parse: (body) => parseMessagesBody(body, true),
  upstreamBody: (request, upstreamModel) => (request.body.model === upstreamModel ? null : { ...request.body, model: upstreamModel }),
  usageFromResponse: (body) => messagesUsage(asRecord(body)?.usage),
  createStreamTracker: () => new MessagesStreamTracker(),
  streamErrorEvent: (message) => sseFrame(JSON.stringify({ type: "error", error: { type: "api_error", message } }), "error"),
};
