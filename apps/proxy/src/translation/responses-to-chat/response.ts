import { chatUsage } from "../../upstreams/openai/usage.ts";
import { asRecord } from "../../upstreams/request-fields.ts";
import { customInputFromArguments } from "../../core/custom-tools.ts";
import { customToolCallItem, functionCallItem, messageItem, outputTextPart, refusalPart, type MessagePart } from "../responses-output/output-items.ts";
import { responseObject } from "../responses-output/response-object.ts";
import { list } from "../../core/fields.ts";
import { derivedId, itemId, nowSeconds } from "../../core/ids.ts";
import { CalledTools } from "../shared/namespace-tools.ts";
import { asChatFinishReason } from "../shared/stop-reasons.ts";
import { responsesOutcomeFromChat } from "./outcome.ts";

/** A chat completion -> a Responses `response`: one message item, then one function_call item per call (a namespace tool's with its namespace). */
export function responseFromChatCompletion(upstream: unknown, request: Record<string, unknown>): Record<string, unknown> {
  const completion = asRecord(upstream) ?? {};
  const choice = asRecord(list(completion.choices)[0]);
  const message = asRecord(choice?.message) ?? {};
  const outcome = responsesOutcomeFromChat(asChatFinishReason(choice?.finish_reason));
  const parts: MessagePart[] = [];
  if (typeof message.content === "string" && message.content.length > 0) parts.push(outputTextPart(message.content));
  if (typeof message.refusal === "string" && message.refusal.length > 0) parts.push(refusalPart(message.refusal));
  const tools = new CalledTools(request);
  const output: Record<string, unknown>[] = [];
  if (parts.length > 0) output.push(messageItem(itemId("msg_"), parts, outcome.status === "incomplete" ? "incomplete" : "completed"));
  for (const raw of list(message.tool_calls)) {
    const call = asRecord(raw);
    const fn = asRecord(call?.function);
    const callId = typeof call?.id === "string" ? call.id : itemId("call_");
    const called = tools.resolve(String(fn?.name ?? ""));
    if (called.custom) output.push(customToolCallItem(`ctc_${callId}`, callId, called.name, customInputFromArguments(fn?.arguments), "completed", called.namespace));
    else output.push(functionCallItem(`fc_${callId}`, callId, called.name, typeof fn?.arguments === "string" ? fn.arguments : "{}", "completed", called.namespace));
  }
  return responseObject(request, {
    id: derivedId("resp_", completion.id),
    createdAt: typeof completion.created === "number" ? completion.created : nowSeconds(),
    model: completion.model,
    outcome,
    output,
    usage: chatUsage(completion.usage),
  });
}
