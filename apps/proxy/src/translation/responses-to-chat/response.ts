import { answerFromChatCompletion } from "../../shapes/openai-chat/reader/response.ts";
import { responseFromAnswer } from "../../shapes/openai-responses/writer/response.ts";

/** A chat completion -> a Responses `response`: the chat response reader, then the Responses writer. */
export function responseFromChatCompletion(upstream: unknown, request: Record<string, unknown>): Record<string, unknown> {
  return responseFromAnswer(answerFromChatCompletion(upstream), request);
}
