import { anthropicStopReasonFor } from "../../shapes/anthropic-messages/finish.ts";
import { finishFromChat } from "../../shapes/openai-chat/finish.ts";
import type { AnthropicStopReason, ChatFinishReason } from "../shared/stop-reasons.ts";

/** Chat Completions finish_reason -> Anthropic stop_reason, through the neutral finish (none: end_turn). */
export function anthropicStopReason(finish: ChatFinishReason | null): AnthropicStopReason {
  const neutral = finishFromChat(finish);
  return neutral ? anthropicStopReasonFor(neutral) : "end_turn";
}
