import type { Answer, AnswerBlock } from "../../../core/answer.ts";
import { list } from "../../../core/fields.ts";
import { asRecord } from "../../../core/request-fields.ts";
import { finishFromConverse } from "../finish.ts";
import { converseUsage } from "../usage.ts";

/**
 * A ConverseResponse -> a neutral answer: `output.message.content` in order (text; a `toolUse`
 * whole, its input object as JSON text; `reasoningContent.reasoningText` as reasoning, its
 * signature carried as Anthropic's when the model is Claude's, a `redactedContent` as redacted
 * reasoning), the finish from `stopReason`, usage from `usage`. Converse names no message id.
 */
export function answerFromConverse(upstream: unknown): Answer {
  const response = asRecord(upstream) ?? {};
  const blocks: AnswerBlock[] = [];
  for (const raw of list(asRecord(asRecord(response.output)?.message)?.content)) {
    const block = asRecord(raw) ?? {};
    const toolUse = asRecord(block.toolUse);
    const reasoning = asRecord(block.reasoningContent);
    if (typeof block.text === "string") {
      if (block.text.length === 0) continue;
      const last = blocks.at(-1);
      if (last?.type === "text") last.text += block.text;
      else blocks.push({ type: "text", text: block.text, sources: [] });
    } else if (toolUse) {
      const id = typeof toolUse.toolUseId === "string" && toolUse.toolUseId.length > 0 ? toolUse.toolUseId : null;
      blocks.push({ type: "tool-call", callId: id, name: String(toolUse.name ?? ""), input: JSON.stringify(toolUse.input ?? {}) });
    } else if (reasoning) {
      const text = asRecord(reasoning.reasoningText);
      if (text) blocks.push({ type: "reasoning", text: typeof text.text === "string" ? text.text : "", signature: null });
      else if (typeof reasoning.redactedContent === "string") blocks.push({ type: "reasoning", text: "", signature: null });
    }
  }
  return { id: undefined, model: undefined, created: null, blocks, finish: finishFromConverse(response.stopReason), usage: converseUsage(response.usage) };
}
