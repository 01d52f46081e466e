import type { ParsedRequest, WireFormat } from "../upstreams/index.ts";
import type { DroppedParams } from "../core/drops.ts";
import type { StreamTranslator } from "../core/pipeline.ts";

export type { StreamTranslator };

export type TranslationName =
  | "messages-to-chat"
  | "chat-to-messages"
  | "responses-to-chat"
  | "responses-to-messages"
  // Gemini (shapes/gemini/translations.ts): composed from the shapes' readers and writers.
  | "chat-to-gemini"
  | "messages-to-gemini"
  | "responses-to-gemini"
  | "gemini-to-chat"
  | "gemini-to-messages"
  | "gemini-embed-to-openai";

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
