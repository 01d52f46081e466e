import { asRecord } from "../../upstreams/request-fields.ts";
import { customInputFromArguments, customToolNames } from "../shared/custom-tools.ts";
import { REDACTED_THINKING_PREFIX, customToolCallItem, functionCallItem, messageItem, outputTextPart, reasoningItem, type MessagePart } from "../responses-output/output-items.ts";
import { responseObject } from "../responses-output/response-object.ts";
import { list } from "../shared/fields.ts";
import { derivedId, itemId, nowSeconds } from "../shared/ids.ts";
import { asAnthropicStopReason } from "../shared/stop-reasons.ts";
import { argumentsFromToolInput } from "../shared/tool-input.ts";
import { anthropicUsage } from "../shared/usage-bodies.ts";
import { responsesOutcomeFromMessages } from "./outcome.ts";

/**
 * An Anthropic message -> a Responses `response`, block by block in order: consecutive text
 * blocks make one message item, each tool_use a function_call item, each thinking block a
 * reasoning item (summary + signature in encrypted_content).
 */
export function responseFromMessage(upstream: unknown, request: Record<string, unknown>): Record<string, unknown> {
  const message = asRecord(upstream) ?? {};
  const outcome = responsesOutcomeFromMessages(asAnthropicStopReason(message.stop_reason));
  const customTools = customToolNames(request);
  const output: Record<string, unknown>[] = [];
  let text: MessagePart[] | null = null;
  for (const raw of list(message.content)) {
    const block = asRecord(raw);
    switch (block?.type) {
      case "text": {
        if (!text) {
          text = [outputTextPart("")];
          output.push(messageItem(itemId("msg_"), text, "completed"));
        }
        const part = text[0] as Extract<MessagePart, { type: "output_text" }>;
        part.text += typeof block.text === "string" ? block.text : "";
        continue;
      }
      case "tool_use": {
        const callId = String(block.id);
        const name = String(block.name);
        if (customTools.has(name)) output.push(customToolCallItem(`ctc_${callId}`, callId, name, customInputFromArguments(block.input), "completed"));
        else output.push(functionCallItem(`fc_${callId}`, callId, name, argumentsFromToolInput(block.input), "completed"));
        break;
      }
      case "thinking":
        output.push(reasoningItem(itemId("rs_"), String(block.thinking ?? ""), typeof block.signature === "string" ? block.signature : null));
        break;
      case "redacted_thinking":
        output.push(reasoningItem(itemId("rs_"), null, REDACTED_THINKING_PREFIX + String(block.data)));
        break;
      default:
        // Server-tool blocks only follow server tools, which the request mapper refuses.
        break;
    }
    text = null;
  }
  const last = output.at(-1);
  if (outcome.status === "incomplete" && last?.type === "message") last.status = "incomplete";
  return responseObject(request, {
    id: derivedId("resp_", message.id),
    createdAt: nowSeconds(),
    model: message.model,
    outcome,
    output,
    usage: anthropicUsage(message.usage),
  });
}
