import { asRecord } from "../../upstreams/request-fields.ts";
import { list } from "../../core/fields.ts";
import { derivedId, nowSeconds } from "../../core/ids.ts";
import { asAnthropicStopReason } from "../shared/stop-reasons.ts";
import { argumentsFromToolInput } from "../../core/tool-input.ts";
import { chatUrlCitations } from "../shared/web-search.ts";
import { chatFinishReason } from "./finish-reason.ts";
import { chatUsageFromMessages } from "./usage.ts";

/**
 * An Anthropic message -> a chat completion. Text blocks join into `content` (web search citations
 * as `url_citation` annotations over the cited text), tool_use blocks become `tool_calls` in
 * order. Thinking is never turned into text: it is returned as `reasoning_content` plus the exact
 * blocks in `thinking_blocks`, which the request mapper sends back unchanged on the next turn
 * (Anthropic needs them, signed, before a tool result).
 */
export function chatCompletionFromMessage(upstream: unknown): Record<string, unknown> {
  const message = asRecord(upstream) ?? {};
  let text = "";
  const annotations: Record<string, unknown>[] = [];
  const toolCalls: Record<string, unknown>[] = [];
  const thinking: Record<string, unknown>[] = [];
  for (const raw of list(message.content)) {
    const block = asRecord(raw);
    switch (block?.type) {
      case "text": {
        const start = text.length;
        text += typeof block.text === "string" ? block.text : "";
        annotations.push(...chatUrlCitations(block.citations, start, text.length));
        break;
      }
      case "tool_use":
        toolCalls.push({ id: block.id, type: "function", function: { name: block.name, arguments: argumentsFromToolInput(block.input) } });
        break;
      case "thinking":
      case "redacted_thinking":
        thinking.push(block);
        break;
      default:
        // A web search (server_tool_use + web_search_tool_result, from web_search_options) has no
        // chat form: its results reach the client as the cited text's annotations, billed per search.
        break;
    }
  }
  const stopReason = asAnthropicStopReason(message.stop_reason);
  const chatMessage: Record<string, unknown> = {
    role: "assistant",
    content: text.length === 0 && toolCalls.length > 0 ? null : text,
    refusal: null,
    annotations,
  };
  if (toolCalls.length > 0) chatMessage.tool_calls = toolCalls;
  if (thinking.length > 0) {
    chatMessage.reasoning_content = thinking.map((block) => (typeof block.thinking === "string" ? block.thinking : "")).join("");
    chatMessage.thinking_blocks = thinking;
  }
  const choice: Record<string, unknown> = { index: 0, message: chatMessage, logprobs: null, finish_reason: chatFinishReason(stopReason) };
  if (stopReason === "stop_sequence") choice.stop_sequence = message.stop_sequence ?? null;
  const usage = chatUsageFromMessages(message.usage);
  return {
    id: derivedId("chatcmpl-", message.id),
    object: "chat.completion",
    created: nowSeconds(),
    model: message.model,
    choices: [choice],
    ...(usage ? { usage: usage.body } : {}),
  };
}
