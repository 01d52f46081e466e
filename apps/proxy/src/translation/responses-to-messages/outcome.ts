import { finishFromAnthropic } from "../../shapes/anthropic-messages/finish.ts";
import { responsesOutcome } from "../../shapes/openai-responses/finish.ts";
import type { AnthropicStopReason, ResponsesOutcome } from "../shared/stop-reasons.ts";

/** Anthropic stop_reason -> the Responses status, through the neutral finish. */
export function responsesOutcomeFromMessages(stop: AnthropicStopReason | null): ResponsesOutcome {
  return responsesOutcome(finishFromAnthropic(stop));
}
