import type { EventSourceMessage } from "eventsource-parser";
import type { EndpointName, Shape, Usage } from "@gateway/contracts";

// Declared once in @gateway/contracts (`SHAPES`, `MODEL_ENDPOINTS`).
export type { EndpointName, Shape };

/** Watches one stream's events as they pass: captures usage, decides what the client sees. */
export interface StreamTracker {
  /** Returns false when the event must not reach the client (the usage chunk it did not ask for). */
  observe(event: EventSourceMessage): boolean;
  /** The upstream's own error event (it failed mid-stream, or before any content). */
  isError(event: EventSourceMessage): boolean;
  /** Saw the shape's terminal event: the stream is whole. */
  readonly complete: boolean;
  /**
   * The stream's final usage (OpenAI's usage chunk, Anthropic's `message_delta`, a Responses
   * terminal event), or null until it came: a `message_start`'s usage is not final.
   */
  usage(): Usage | null;
  /** The latest usage the upstream sent, final or partial (a `message_start`'s): an estimate's floor. */
  reported(): Usage | null;
  /**
   * The output text one event carries (text, reasoning, tool arguments), "" for any other: read
   * only when an estimate is needed (relay/output-meter.ts), never on the relay's own path.
   */
  outputText(event: EventSourceMessage): string;
}

/** What a route's URL says of the request (Gemini: `/v1beta/models/{model}:streamGenerateContent`). */
export interface RouteFacts {
  model: string;
  stream: boolean;
}

/** The client's request after the required fields were checked; the rest passes through. */
export interface ParsedRequest {
  body: Record<string, unknown>;
  model: string;
  stream: boolean;
  /**
   * The output limit the request runs under (contract section 14, "one output bound"): computed
   * once in the route from the request's own field and the model's `max_output_tokens`, read by
   * the limiter's reservation, every translator and the upstream call. Unset before the route has
   * computed it (and on endpoints that produce no tokens).
   */
  outputBound?: number;
  /**
   * The gateway keeps this Responses request's state (contract section 18): it is stored or
   * continues a stored one. A same-shape reasoning upstream is then asked for its encrypted
   * reasoning, so the next turn can replay it to any target.
   */
  keepsState?: boolean;
}

/**
 * One wire format (an endpoint of a shape): how to check, prepare and read its requests, responses
 * and streams. Core code never asks which shape it talks to; it calls these.
 */
export interface WireFormat {
  endpoint: EndpointName;
  shape: Shape;
  /** Path appended to the upstream's base URL. */
  upstreamPath: string;
  /**
   * The path when it names the model and the method (Gemini: `/models/{model}:streamGenerateContent?alt=sse`);
   * `upstreamPath` otherwise.
   */
  pathFor?(upstreamModel: string, stream: boolean): string;
  /**
   * Checks the required fields only (400 envelope naming the field). `route`: the model and the
   * method when the URL names them (Gemini), not the body.
   */
  parse(body: unknown, route?: RouteFacts): ParsedRequest;
  /**
   * The upstream body: the client's, with `model` rewritten and usage always requested; null when
   * that changes nothing, so the client's bytes go upstream as they came (no re-serialising).
   */
  upstreamBody(request: ParsedRequest, upstreamModel: string): Record<string, unknown> | null;
  usageFromResponse(body: unknown): Usage | null;
  createStreamTracker(request: ParsedRequest): StreamTracker;
  /**
   * The shape's own final error event (contract section 3), as SSE text: `type` is the envelope's
   * error type (`api_error` for an upstream's failure, `authentication_error` for a revoked key).
   */
  streamErrorEvent(message: string, code: string, sequenceNumber: number, type?: string): string;
}
