import { finishFromChat } from "../../shapes/openai-chat/finish.ts";
import { responsesOutcome } from "../../shapes/openai-responses/finish.ts";
import type { ChatFinishReason, ResponsesOutcome } from "../shared/stop-reasons.ts";

/** Chat Completions finish_reason -> the Responses status, through the neutral finish. */
export function responsesOutcomeFromChat(finish: ChatFinishReason | null): ResponsesOutcome {
  return responsesOutcome(finishFromChat(finish));
}
