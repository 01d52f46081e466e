import type { DroppedParams } from "../../core/drops.ts";
import { readRequest } from "../../shapes/openai-chat/reader/request.ts";
import { accepts } from "../../shapes/anthropic-messages/writer/accepts.ts";
import { writeRequest } from "../../shapes/anthropic-messages/writer/request.ts";

/**
 * A Chat Completions request -> an Anthropic Messages request: the chat reader, then the Messages
 * writer (kept for its tests; the relay builds the same pair from `shapes/index.ts`).
 */
export function messagesRequestFromChat(chat: Record<string, unknown>, dropped: DroppedParams, outputBound: number | undefined): Record<string, unknown> {
  return writeRequest(readRequest(chat, { drops: dropped, accepts, outputBound }), { drops: dropped, outputBound });
}
