import type { DroppedParams } from "../../core/drops.ts";
import { readRequest } from "../../shapes/anthropic-messages/reader/request.ts";
import { accepts } from "../../shapes/openai-chat/writer/accepts.ts";
import { writeRequest } from "../../shapes/openai-chat/writer/request.ts";

/**
 * An Anthropic Messages request -> a Chat Completions request: the Messages reader, then the chat
 * writer (kept for its tests; the relay builds the same pair from `shapes/index.ts`).
 */
export function chatRequestFromMessages(request: Record<string, unknown>, dropped: DroppedParams, outputBound: number | undefined): Record<string, unknown> {
  return writeRequest(readRequest(request, { drops: dropped, accepts, outputBound }), { drops: dropped, outputBound });
}
