import { answerFromMessage } from "../../shapes/anthropic-messages/reader/response.ts";
import { responseFromAnswer } from "../../shapes/openai-responses/writer/response.ts";

/** An Anthropic message -> a Responses `response`: the Anthropic response reader, then the Responses writer. */
export function responseFromMessage(upstream: unknown, request: Record<string, unknown>): Record<string, unknown> {
  return responseFromAnswer(answerFromMessage(upstream), request);
}
