import type { Answer, AnswerBlock } from "../../../core/answer.ts";
import { list } from "../../../core/fields.ts";
import { chatUsage } from "../usage.ts";
import { asRecord } from "../../../core/request-fields.ts";
import { finishFromChat } from "../finish.ts";

/** A chat completion -> a neutral answer: the content, the refusal, then one tool call per `tool_calls` entry. */
export function answerFromChatCompletion(upstream: unknown): Answer {
  const completion = asRecord(upstream) ?? {};
  const choice = asRecord(list(completion.choices)[0]);
  const message = asRecord(choice?.message) ?? {};
  const blocks: AnswerBlock[] = [];
  if (typeof message.content === "string" && message.content.length > 0) blocks.push({ type: "text", text: message.content, sources: [] });
  if (typeof message.refusal === "string" && message.refusal.length > 0) blocks.push({ type: "refusal", text: message.refusal });
  for (const raw of list(message.tool_calls)) {
    const call = asRecord(raw);
    const fn = asRecord(call?.function);
    blocks.push({
      type: "tool-call",
      callId: typeof call?.id === "string" ? call.id : null,
      name: String(fn?.name ?? ""),
      input: typeof fn?.arguments === "string" ? fn.arguments : "{}",
    });
  }
  return {
    id: completion.id,
    model: completion.model,
    created: typeof completion.created === "number" ? completion.created : null,
    blocks,
    finish: finishFromChat(choice?.finish_reason),
    usage: chatUsage(completion.usage),
  };
}
