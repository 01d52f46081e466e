import { messageFromAnswer } from "../../shapes/anthropic-messages/writer/response.ts";
import { answerFromChatCompletion } from "../../shapes/openai-chat/reader/response.ts";

/** A chat completion -> an Anthropic message: the chat response reader, then the Messages writer (`client.model` when the upstream names none). */
export function messageFromChatCompletion(upstream: unknown, client: Record<string, unknown> = {}): Record<string, unknown> {
  return messageFromAnswer(answerFromChatCompletion(upstream), client.model);
}
