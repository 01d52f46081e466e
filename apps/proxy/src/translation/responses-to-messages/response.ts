import { asRecord } from "../../upstreams/request-fields.ts";
import { customInputFromArguments } from "../../core/custom-tools.ts";
import {
  REDACTED_THINKING_PREFIX,
  customToolCallItem,
  functionCallItem,
  messageItem,
  outputTextPart,
  reasoningItem,
  webSearchCallItem,
  webSearchItemId,
  type MessagePart,
} from "../responses-output/output-items.ts";
import { responseObject } from "../responses-output/response-object.ts";
import { list } from "../../core/fields.ts";
import { derivedId, itemId, nowSeconds } from "../../core/ids.ts";
import { CalledTools } from "../shared/namespace-tools.ts";
import { asAnthropicStopReason } from "../shared/stop-reasons.ts";
import { argumentsFromToolInput } from "../../core/tool-input.ts";
import { anthropicUsage } from "../shared/usage-bodies.ts";
import { urlCitations, wantsWebSearchSources, webSearchQuery, webSearchSources } from "../shared/web-search.ts";
import { responsesOutcomeFromMessages } from "./outcome.ts";

/**
 * An Anthropic message -> a Responses `response`, block by block in order: consecutive text
 * blocks make one message item (web search citations as url_citation annotations), each tool_use
 * a function_call item (namespace tools answered with their namespace), each thinking block a
 * reasoning item (summary + signature in encrypted_content), each web search (server_tool_use +
 * web_search_tool_result) a web_search_call item.
 */
export function responseFromMessage(upstream: unknown, request: Record<string, unknown>): Record<string, unknown> {
  const message = asRecord(upstream) ?? {};
  const outcome = responsesOutcomeFromMessages(asAnthropicStopReason(message.stop_reason));
  const tools = new CalledTools(request);
  const withSources = wantsWebSearchSources(request);
  const output: Record<string, unknown>[] = [];
  const searches = new Map<string, Record<string, unknown>>();
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
        const start = part.text.length;
        part.text += typeof block.text === "string" ? block.text : "";
        part.annotations.push(...urlCitations(block.citations, start, part.text.length));
        continue;
      }
      case "tool_use": {
        const callId = String(block.id);
        const called = tools.resolve(String(block.name));
        if (called.custom) output.push(customToolCallItem(`ctc_${callId}`, callId, called.name, customInputFromArguments(block.input), "completed", called.namespace));
        else output.push(functionCallItem(`fc_${callId}`, callId, called.name, argumentsFromToolInput(block.input), "completed", called.namespace));
        break;
      }
      case "server_tool_use": {
        // Only web search is ever asked for (the request mapper refuses other server tools).
        const item = webSearchCallItem(webSearchItemId(String(block.id)), "completed", webSearchQuery(block.input), withSources ? [] : null);
        searches.set(String(block.id), item);
        output.push(item);
        break;
      }
      case "web_search_tool_result": {
        const item = searches.get(String(block.tool_use_id));
        const sources = webSearchSources(block.content);
        if (item && sources === null) item.status = "failed";
        else if (item && withSources) (item.action as Record<string, unknown>).sources = sources;
        break;
      }
      case "thinking":
        output.push(reasoningItem(itemId("rs_"), String(block.thinking ?? ""), typeof block.signature === "string" ? block.signature : null));
        break;
      case "redacted_thinking":
        output.push(reasoningItem(itemId("rs_"), null, REDACTED_THINKING_PREFIX + String(block.data)));
        break;
      default:
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
