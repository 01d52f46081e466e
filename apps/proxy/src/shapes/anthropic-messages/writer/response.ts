import { EMPTY_USAGE } from "@gateway/contracts";
import type { Answer } from "../../../core/answer.ts";
import { derivedId, itemId } from "../../../core/ids.ts";
import { toolInputFromArguments } from "../../../core/tool-input.ts";
import { anthropicStopReasonFor } from "../finish.ts";
import { anthropicUsageBody } from "../usage.ts";

/**
 * A neutral answer -> an Anthropic message: a text block per text (a refusal's text when there is
 * no other), then the tool_use blocks, in order; a refusal makes the stop reason `refusal` (OpenAI
 * marks one by its `refusal` field, with finish_reason "stop"). `clientModel`: the message's model
 * when the upstream names none. No reader gives this writer reasoning or searches yet.
 */
export function messageFromAnswer(answer: Answer, clientModel: unknown): Record<string, unknown> {
  const content: Record<string, unknown>[] = [];
  const hasText = answer.blocks.some((block) => block.type === "text");
  let refused = false;
  for (const block of answer.blocks) {
    switch (block.type) {
      case "text":
        // No `citations` key: the native API omits it on plain text, and null breaks @ai-sdk/anthropic.
        if (block.text.length > 0) content.push({ type: "text", text: block.text });
        break;
      case "refusal":
        refused = true;
        if (!hasText) content.push({ type: "text", text: block.text });
        break;
      case "tool-call":
        content.push({ type: "tool_use", id: block.callId ?? itemId("toolu_"), name: block.name, input: toolInputFromArguments(block.input) });
        break;
      case "reasoning":
      case "redacted-reasoning":
      case "search":
        break;
      default: {
        const never: never = block;
        return never;
      }
    }
  }
  const stopSequence = answer.finish?.reason === "stop-sequence" ? (answer.finish.stopSequence ?? null) : null;
  return {
    id: derivedId("msg_", answer.id),
    type: "message",
    role: "assistant",
    model: typeof answer.model === "string" ? answer.model : clientModel,
    content,
    stop_reason: refused ? "refusal" : answer.finish ? anthropicStopReasonFor(answer.finish) : "end_turn",
    stop_sequence: stopSequence,
    usage: anthropicUsageBody(answer.usage ?? EMPTY_USAGE),
  };
}
