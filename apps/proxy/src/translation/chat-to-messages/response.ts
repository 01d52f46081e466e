import { answerFromMessage } from "../../shapes/anthropic-messages/reader/response.ts";
import { chatCompletionFromAnswer } from "../../shapes/openai-chat/writer/response.ts";

/** An Anthropic message -> a chat completion: the Anthropic response reader, then the chat writer. */
export function chatCompletionFromMessage(upstream: unknown): Record<string, unknown> {
  return chatCompletionFromAnswer(answerFromMessage(upstream));
}
