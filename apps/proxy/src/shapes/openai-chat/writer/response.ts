import type { Answer } from "../../../core/answer.ts";
import { derivedId, itemId, nowSeconds } from "../../../core/ids.ts";
import { encodeOpaque } from "../../../core/opaque.ts";
import { chatFinishReasonFor } from "../finish.ts";
import { chatUsageBody } from "../usage.ts";

/**
 * A neutral answer -> a chat completion. Text blocks join into `content` (cited sources as
 * `url_citation` annotations over the cited text), tool calls become `tool_calls` in order.
 * Reasoning is never turned into text: it is `reasoning_content` plus the blocks, signed, in
 * `thinking_blocks` (signatures tagged by who made them: core/opaque.ts), which the request mapper
 * sends back on the next turn (Anthropic needs them, signed, before a tool result). Web searches have no chat form: their results reach
 * the client as the cited text's annotations.
 */
export function chatCompletionFromAnswer(answer: Answer): Record<string, unknown> {
  let text = "";
  let refusal: string | null = null;
  const annotations: Record<string, unknown>[] = [];
  const toolCalls: Record<string, unknown>[] = [];
  const thinkingBlocks: Record<string, unknown>[] = [];
  let reasoning = "";
  for (const block of answer.blocks) {
    switch (block.type) {
      case "text": {
        const start = text.length;
        text += block.text;
        for (const { url, title } of block.sources) annotations.push({ type: "url_citation", url_citation: { start_index: start, end_index: text.length, url, title } });
        break;
      }
      case "refusal":
        refusal = (refusal ?? "") + block.text;
        break;
      case "tool-call":
        toolCalls.push({ id: block.callId ?? itemId("call_"), type: "function", function: { name: block.name, arguments: block.input } });
        break;
      case "reasoning":
        reasoning += block.text;
        thinkingBlocks.push({ type: "thinking", thinking: block.text, ...(block.signature ? { signature: encodeOpaque(block.signature) } : {}) });
        break;
      case "redacted-reasoning":
        thinkingBlocks.push({ type: "redacted_thinking", data: encodeOpaque(block.data) });
        break;
      case "search":
        break;
      default: {
        const never: never = block;
        return never;
      }
    }
  }
  const message: Record<string, unknown> = { role: "assistant", content: text.length === 0 && toolCalls.length > 0 ? null : text, refusal, annotations };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  if (thinkingBlocks.length > 0) {
    message.reasoning_content = reasoning;
    message.thinking_blocks = thinkingBlocks;
  }
  const choice: Record<string, unknown> = { index: 0, message, logprobs: null, finish_reason: chatFinishReasonFor(answer.finish) };
  if (answer.finish?.reason === "stop-sequence") choice.stop_sequence = answer.finish.stopSequence ?? null;
  return {
    id: derivedId("chatcmpl-", answer.id),
    object: "chat.completion",
    created: answer.created ?? nowSeconds(),
    model: answer.model,
    choices: [choice],
    ...(answer.usage ? { usage: chatUsageBody(answer.usage) } : {}),
  };
}
