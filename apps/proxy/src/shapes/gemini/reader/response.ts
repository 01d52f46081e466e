import type { Answer, AnswerBlock } from "../../../core/answer.ts";
import type { Opaque } from "../../../core/stream-parts.ts";
import { list } from "../../../core/fields.ts";
import { asRecord } from "../../../core/request-fields.ts";
import { finishFromBlockReason, finishFromGemini } from "../finish.ts";
import { geminiUsage } from "../usage.ts";

/**
 * A GenerateContentResponse -> a neutral answer: the first candidate's parts in order (text, thought
 * text as reasoning with its signature from Gemini, each functionCall whole, its args as JSON text;
 * the signature of a call or of a text answer as signed reasoning before the call, after the text);
 * finish from its finishReason (a function call's STOP is tool-calls), or filtered for a prompt
 * blocked before any candidate (`promptFeedback.blockReason`).
 */
export function answerFromGemini(upstream: unknown): Answer {
  const response = asRecord(upstream) ?? {};
  const candidate = asRecord(list(response.candidates)[0]);
  const blocks: AnswerBlock[] = [];
  let calls = false;
  /** A function call's or an answer's signature: on the reasoning just before, when still unsigned, else a reasoning block of its own (as the stream reader does). */
  const sign = (signature: Opaque | null): void => {
    if (signature === null) return;
    const last = blocks.at(-1);
    if (last?.type === "reasoning" && last.signature === null) last.signature = signature;
    else blocks.push({ type: "reasoning", text: "", signature });
  };
  for (const raw of list(asRecord(candidate?.content)?.parts)) {
    const part = asRecord(raw) ?? {};
    const signature = typeof part.thoughtSignature === "string" ? { origin: "gemini" as const, value: part.thoughtSignature } : null;
    const call = asRecord(part.functionCall);
    if (call) {
      calls = true;
      sign(signature);
      blocks.push({ type: "tool-call", callId: typeof call.id === "string" && call.id.length > 0 ? call.id : null, name: String(call.name ?? ""), input: JSON.stringify(call.args ?? {}) });
    } else if (typeof part.text === "string" && part.thought === true) {
      const last = blocks.at(-1);
      if (last?.type === "reasoning" && last.signature === null) {
        last.text += part.text;
        last.signature = signature;
      } else {
        blocks.push({ type: "reasoning", text: part.text, signature });
      }
    } else if (typeof part.text === "string") {
      const last = blocks.at(-1);
      if (part.text.length > 0 && last?.type === "text") last.text += part.text;
      else if (part.text.length > 0) blocks.push({ type: "text", text: part.text, sources: [] });
      // Gemini 3 signs a text answer (on its text, or an empty last part): the signature follows the text.
      sign(signature);
    }
  }
  const blocked = candidate === null ? finishFromBlockReason(asRecord(response.promptFeedback)?.blockReason) : null;
  return {
    id: response.responseId,
    model: response.modelVersion,
    created: null,
    blocks,
    finish: blocked ?? finishFromGemini(candidate?.finishReason, calls),
    usage: geminiUsage(response.usageMetadata),
  };
}
