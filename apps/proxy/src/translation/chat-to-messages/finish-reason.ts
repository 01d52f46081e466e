import { finishFromAnthropic } from "../../shapes/anthropic-messages/finish.ts";
import { chatFinishReasonFor } from "../../shapes/openai-chat/finish.ts";
import type { AnthropicStopReason, ChatFinishReason } from "../shared/stop-reasons.ts";

/** Anthropic stop_reason -> Chat Completions finish_reason, through the neutral finish (the shapes' finish.ts). */
export function chatFinishReason(stop: AnthropicStopReason | null): ChatFinishReason {
  return chatFinishReasonFor(finishFromAnthropic(stop));
}
