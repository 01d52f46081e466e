import type { DroppedParams } from "../../core/drops.ts";
import { readRequest } from "../../shapes/openai-responses/reader/request.ts";
import { accepts } from "../../shapes/openai-chat/writer/accepts.ts";
import { writeRequest } from "../../shapes/openai-chat/writer/request.ts";

/**
 * A Responses request -> a Chat Completions request, for an OpenAI upstream without /responses: the
 * Responses reader, then the chat writer (kept for its tests; the relay builds the same pair from
 * `shapes/index.ts`).
 */
export function chatRequestFromResponses(request: Record<string, unknown>, dropped: DroppedParams, outputBound: number | undefined): Record<string, unknown> {
  return writeRequest(readRequest(request, { drops: dropped, accepts, outputBound }), { drops: dropped, outputBound });
}
