import type { EventSourceMessage } from "eventsource-parser";
import type { ParsedRequest, WireFormat } from "../upstreams/index.ts";
import type { DroppedParams } from "../core/drops.ts";

export type TranslationName = "messages-to-chat" | "chat-to-messages" | "responses-to-chat" | "responses-to-messages";

/**
 * Turns one upstream stream into the client's shape, event by event. One instance per attempt:
 * it holds the block indexes, open items and sequence numbers of that stream.
 */
export interface StreamTranslator {
  /** The client's SSE text for one upstream event (possibly ""): never buffers the whole answer. */
  push(event: EventSourceMessage): string;
  /** Called once the upstream stream ended whole: whatever terminal frames are still owed. */
  finish(): string;
  /** Client events written so far: the sequence number a final Responses error event takes. */
  readonly emitted: number;
}

/**
 * A request in one shape served by an upstream of another. Every function is pure: the request
 * mapper refuses what the upstream cannot express (a 400 naming the field), the response mapper
 * and the stream translator read the upstream's own body or events.
 */
export interface Translation {
  readonly name: TranslationName;
  /** The upstream's own wire format: its path, its usage capture and its stream tracker. */
  readonly upstreamWire: WireFormat;
  /**
   * The client's request in the upstream's shape (model still the public name). Fields that only
   * tune the answer and have no equivalent go to `dropped` (which throws under strict_params).
   */
  request(client: ParsedRequest, dropped: DroppedParams): ParsedRequest;
  /** The upstream's JSON body in the client's shape. */
  response(upstreamBody: unknown, client: ParsedRequest): Record<string, unknown>;
  /** A fresh stream translator for one attempt. */
  stream(client: ParsedRequest): StreamTranslator;
}
