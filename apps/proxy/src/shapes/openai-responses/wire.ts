import type { EventSourceMessage } from "eventsource-parser";
import type { Usage } from "@gateway/contracts";
import type { StreamTracker, WireFormat } from "../../core/wire-format.ts";
import { asRecord, optionalFiniteNumber, optionalInteger, optionalPositiveInteger, parseRequestFields, tryJson } from "../../core/request-fields.ts";
import { sseFrame } from "../../core/sse.ts";
import { boundedUpstreamBody } from "../../core/output-bound.ts";
import { responsesUsage } from "./usage.ts";

/** Terminal events of a Responses stream; each carries the final usage. */
const TERMINAL = new Set(["response.completed", "response.incomplete", "response.failed"]);

class ResponsesStreamTracker implements StreamTracker {
  complete = false;
  private captured: Usage | null = null;

  observe(event: EventSourceMessage): boolean {
    if (event.event !== undefined && TERMINAL.has(event.event)) {
      this.complete = true;
      this.captured = responsesUsage(asRecord(asRecord(tryJson(event.data))?.response)?.usage);
    }
    return true;
  }

  isError(event: EventSourceMessage): boolean {
    return event.event === "error";
  }

  usage(): Usage | null {
    return this.captured;
  }

  reported(): Usage | null {
    return this.captured;
  }

  outputText(event: EventSourceMessage): string {
    // Every `*.delta` event carries its piece as `delta`: text, refusal, reasoning, tool arguments.
    if (event.event === undefined || !event.event.endsWith(".delta")) return "";
    const delta = asRecord(tryJson(event.data))?.delta;
    return typeof delta === "string" ? delta : "";
  }
}

export const responses: WireFormat = {
  endpoint: "responses",
  shape: "openai",
  upstreamPath: "/responses",
  parse(body) {
    // Same shape, the provider decides (contract section 15): `input` (optional: a stored prompt or
    // previous_response_id may stand in for it) and its items pass as they are.
    const request = parseRequestFields(body, ["model"]);
    // Numbers that may reach arithmetic (the output bound) or be re-serialised (contract section 14).
    optionalPositiveInteger(request.body, "max_output_tokens");
    optionalPositiveInteger(request.body, "max_tool_calls");
    optionalInteger(request.body, "top_logprobs", 0, 20);
    optionalFiniteNumber(request.body, "temperature");
    optionalFiniteNumber(request.body, "top_p");
    return request;
  },
  // The upstream's model name and exactly the output bound; the client's bytes when both are as sent.
  upstreamBody: (request, upstreamModel) => boundedUpstreamBody(request, "responses", upstreamModel),
  usageFromResponse: (body) => responsesUsage(asRecord(body)?.usage),
  createStreamTracker: () => new ResponsesStreamTracker(),
  streamErrorEvent: (message, code, sequenceNumber) =>
    sseFrame(
      JSON.stringify({ type: "error", code, message, param: null, sequence_number: sequenceNumber }),
      "error",
    ),
};
