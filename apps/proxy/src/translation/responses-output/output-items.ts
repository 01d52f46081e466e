/**
 * The Responses output items this gateway writes (openai-node `ResponseOutputMessage`,
 * `ResponseFunctionToolCall`, `ResponseReasoningItem`), for whole bodies and streams alike.
 */
export type ItemStatus = "in_progress" | "completed" | "incomplete";

export type MessagePart = { type: "output_text"; annotations: never[]; logprobs: never[]; text: string } | { type: "refusal"; refusal: string };

export function outputTextPart(text: string): MessagePart {
  return { type: "output_text", annotations: [], logprobs: [], text };
}

export function refusalPart(refusal: string): MessagePart {
  return { type: "refusal", refusal };
}

export function messageItem(id: string, content: MessagePart[], status: ItemStatus): Record<string, unknown> {
  return { id, type: "message", status, role: "assistant", content };
}

export function functionCallItem(id: string, callId: string, name: string, args: string, status: ItemStatus): Record<string, unknown> {
  return { id, type: "function_call", status, arguments: args, call_id: callId, name };
}

/** A freeform (custom) tool call: `input` is the one string the tool takes. */
export function customToolCallItem(id: string, callId: string, name: string, input: string, status: ItemStatus): Record<string, unknown> {
  return { id, type: "custom_tool_call", status, call_id: callId, name, input };
}

/**
 * Anthropic thinking as a reasoning item: the (summarised) thinking text is the summary and the
 * signature travels in encrypted_content, so the item sent back as input becomes the same signed
 * block. A redacted block has no text; its data is marked so it comes back as redacted_thinking.
 */
export const REDACTED_THINKING_PREFIX = "anthropic.redacted_thinking:";

export function reasoningItem(id: string, summary: string | null, encrypted: string | null): Record<string, unknown> {
  const item: Record<string, unknown> = { id, type: "reasoning", summary: summary === null ? [] : [{ type: "summary_text", text: summary }] };
  if (encrypted !== null) item.encrypted_content = encrypted;
  return item;
}
