import type { DroppedParams } from "../../core/drops.ts";
import { readRequest } from "../../shapes/openai-responses/reader/request.ts";
import { accepts } from "../../shapes/anthropic-messages/writer/accepts.ts";
import { writeRequest } from "../../shapes/anthropic-messages/writer/request.ts";

/**
 * A Responses request -> an Anthropic Messages request: the Responses reader, then the Messages
 * writer (kept for its tests; the relay builds the same pair from `shapes/index.ts`).
 */
export function messagesRequestFromResponses(request: Record<string, unknown>, dropped: DroppedParams, outputBound: number | undefined): Record<string, unknown> {
  return writeRequest(readRequest(request, { drops: dropped, accepts, outputBound }), { drops: dropped, outputBound });
}
