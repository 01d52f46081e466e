import { EMPTY_USAGE } from "@gateway/contracts";
import { asRecord } from "../../upstreams/request-fields.ts";
import { list } from "../../core/fields.ts";
import { derivedId, itemId } from "../../core/ids.ts";
import { asChatFinishReason } from "../shared/stop-reasons.ts";
import { toolInputFromArguments } from "../../core/tool-input.ts";
import { anthropicUsageBody } from "../shared/usage-bodies.ts";
import { anthropicStopReason } from "./stop-reason.ts";
import { anthropicUsageFromChat } from "./usage.ts";

/**
 * A chat completion -> an Anthropic message: the text (or the refusal) as a text block, then one
 * tool_use block per tool call, in order.
 */
export function messageFromChatCompletion(upstream: unknown, client: Record<string, unknown> = {}): Record<string, unknown> {
  const completion = asRecord(upstream) ?? {};
  const choice = asRecord(list(completion.choices)[0]);
  const message = asRecord(choice?.message) ?? {};
  const content: Record<string, unknown>[] = [];
  const refused = typeof message.refusal === "string" && message.refusal.length > 0;
  const text = typeof message.content === "string" ? message.content : typeof message.refusal === "string" ? message.refusal : "";
  // No `citations` key: the native API omits it on plain text, and null breaks @ai-sdk/anthropic.
  if (text.length > 0) content.push({ type: "text", text });
  for (const raw of list(message.tool_calls)) {
    const call = asRecord(raw);
    const fn = asRecord(call?.function);
    content.push({ type: "tool_use", id: typeof call?.id === "string" ? call.id : itemId("toolu_"), name: String(fn?.name ?? ""), input: toolInputFromArguments(fn?.arguments) });
  }
  return {
    id: derivedId("msg_", completion.id),
    type: "message",
    role: "assistant",
    model: typeof completion.model === "string" ? completion.model : client.model,
    content,
    // OpenAI marks a refusal by the `refusal` field, with finish_reason "stop".
    stop_reason: refused ? "refusal" : anthropicStopReason(asChatFinishReason(choice?.finish_reason)),
    stop_sequence: null,
    usage: anthropicUsageFromChat(completion.usage)?.body ?? anthropicUsageBody(EMPTY_USAGE),
  };
}
