import { EMPTY_USAGE } from "@gateway/contracts";
import type { Answer } from "../../../core/answer.ts";
import { derivedId, itemId } from "../../../core/ids.ts";
import { encodeOpaque } from "../../../core/opaque.ts";
import { toolInputFromArguments } from "../../../core/tool-input.ts";
import { asRecord } from "../../../core/request-fields.ts";
import { anthropicStopReasonFor } from "../finish.ts";
import { anthropicUsageBody } from "../usage.ts";

/**
 * A neutral answer -> an Anthropic message: a text block per text (a refusal's text when there is
 * no other), then the tool_use blocks, in order; a refusal makes the stop reason `refusal` (OpenAI
 * marks one by its `refusal` field, with finish_reason "stop"). `clientModel`: the message's model
 * when the upstream names none. Reasoning, only when the client turned `thinking` on (as Anthropic
 * answers), is a thinking block signed by the codec (core/opaque.ts: tagged by who made it; empty
 * when it came unsigned), redacted reasoning a redacted_thinking block. No reader gives this
 * writer searches yet.
 */
export function messageFromAnswer(answer: Answer, clientModel: unknown, thinking = false): Record<string, unknown> {
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
        if (thinking) content.push({ type: "thinking", thinking: block.text, signature: block.signature ? encodeOpaque(block.signature) : "" });
        break;
      case "redacted-reasoning":
        if (thinking) content.push({ type: "redacted_thinking", data: encodeOpaque(block.data) });
        break;
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

/** The client's Messages body turns thinking on (`enabled`, or Claude Code's `adaptive`): only then do answers carry thinking blocks. */
export function wantsThinking(body: Record<string, unknown>): boolean {
  const type = asRecord(body.thinking)?.type;
  return type === "enabled" || type === "adaptive";
}
