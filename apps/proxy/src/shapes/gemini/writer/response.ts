import type { Answer } from "../../../core/answer.ts";
import { itemId } from "../../../core/ids.ts";
import { toolInputFromArguments } from "../../../core/tool-input.ts";
import type { ParsedRequest } from "../../../core/wire-format.ts";
import { asRecord } from "../../../core/request-fields.ts";
import { geminiFinishReasonFor } from "../finish.ts";
import { geminiUsageMetadata } from "../usage.ts";

/** Whether the client asked to see thoughts (`generationConfig.thinkingConfig.includeThoughts`), as Gemini shows them only then. */
export function includesThoughts(client: ParsedRequest): boolean {
  return asRecord(asRecord(client.body.generationConfig)?.thinkingConfig)?.includeThoughts === true;
}

/** A response id in Google's form when the upstream's is not one (Google's are opaque strings). */
export function responseId(id: unknown): string {
  return typeof id === "string" && id.length > 0 ? id : itemId("resp_").slice("resp_".length);
}

/**
 * A neutral answer -> a GenerateContentResponse: one candidate whose parts are the blocks in order
 * (reasoning as `thought: true` text, only when the client asked for thoughts; a refusal's text as
 * text; each tool call a `functionCall` with its id and its arguments as an object), Google's finish
 * reason, the usage as `usageMetadata`, the model the client named as `modelVersion`. A blocked
 * answer with nothing to say still has one empty text part (a content without parts is not one).
 */
export function geminiResponseFromAnswer(answer: Answer, client: ParsedRequest): Record<string, unknown> {
  const thoughts = includesThoughts(client);
  const parts: Record<string, unknown>[] = [];
  for (const block of answer.blocks) {
    switch (block.type) {
      case "text":
      case "refusal":
        if (block.text.length > 0) parts.push({ text: block.text });
        break;
      case "reasoning":
        if (thoughts && block.text.length > 0) parts.push({ text: block.text, thought: true });
        break;
      case "tool-call":
        parts.push({ functionCall: { id: block.callId ?? itemId("call_"), name: block.name, args: toolInputFromArguments(block.input) } });
        break;
      case "redacted-reasoning":
      case "search":
        break;
      default: {
        const never: never = block;
        return never;
      }
    }
  }
  if (parts.length === 0) parts.push({ text: "" });
  const body: Record<string, unknown> = {
    candidates: [{ content: { role: "model", parts }, finishReason: geminiFinishReasonFor(answer.finish), index: 0 }],
    modelVersion: client.model,
    responseId: responseId(answer.id),
  };
  if (answer.usage) body.usageMetadata = geminiUsageMetadata(answer.usage);
  return body;
}
