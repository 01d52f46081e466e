import type { Answer } from "../../../core/answer.ts";
import { customInputFromArguments } from "../../../core/custom-tools.ts";
import { derivedId, itemId, nowSeconds } from "../../../core/ids.ts";
import { responsesOutcome } from "../finish.ts";
import { CalledTools } from "../namespace-tools.ts";
import { wantsWebSearchSources } from "../web-search.ts";
import { encodeOpaque } from "../../../core/opaque.ts";
import {
  customToolCallItem,
  functionCallItem,
  messageItem,
  outputTextPart,
  reasoningItem,
  refusalPart,
  urlCitation,
  webSearchCallItem,
  webSearchItemId,
  type MessagePart,
} from "./output-items.ts";
import { responseObject } from "./response-object.ts";

/**
 * A neutral answer -> a Responses `response`, block by block in order: text and refusals in a row
 * make one message item (texts one output_text part, cited sources as url_citation annotations),
 * each tool call a function_call item, or a custom_tool_call for the request's custom tools
 * (namespace tools answered with their namespace), each reasoning block a reasoning item (summary,
 * signature or redacted data in encrypted_content), each web search a web_search_call item. The
 * last item, when a message, is incomplete with the answer, as the stream writer closes it.
 */
export function responseFromAnswer(answer: Answer, request: Record<string, unknown>): Record<string, unknown> {
  const outcome = responsesOutcome(answer.finish);
  const tools = new CalledTools(request);
  const withSources = wantsWebSearchSources(request);
  const output: Record<string, unknown>[] = [];
  let parts: MessagePart[] | null = null;
  const messageParts = (): MessagePart[] => {
    if (parts) return parts;
    const opened: MessagePart[] = [];
    output.push(messageItem(itemId("msg_"), opened, "completed"));
    return (parts = opened);
  };
  for (const block of answer.blocks) {
    switch (block.type) {
      case "text": {
        const message = messageParts();
        const last = message.at(-1);
        const part = (last?.type === "output_text" ? last : outputTextPart("")) as Extract<MessagePart, { type: "output_text" }>;
        if (part !== last) message.push(part);
        const start = part.text.length;
        part.text += block.text;
        for (const source of block.sources) part.annotations.push(urlCitation(source, start, part.text.length));
        continue;
      }
      case "refusal":
        messageParts().push(refusalPart(block.text));
        continue;
      case "tool-call": {
        const callId = block.callId ?? itemId("call_");
        const called = tools.resolve(block.name);
        if (called.custom) output.push(customToolCallItem(`ctc_${callId}`, callId, called.name, customInputFromArguments(block.input), "completed", called.namespace));
        else output.push(functionCallItem(`fc_${callId}`, callId, called.name, block.input, "completed", called.namespace));
        break;
      }
      case "search": {
        const sources = withSources ? block.sources.map((source) => ({ type: "url" as const, url: source.url })) : null;
        output.push(webSearchCallItem(webSearchItemId(block.id), block.failed ? "failed" : "completed", block.query, sources));
        break;
      }
      case "reasoning":
        // No summary for reasoning without text (a signature only), as the stream writer writes it.
        output.push(reasoningItem(itemId("rs_"), block.text.length > 0 ? block.text : null, block.signature ? encodeOpaque(block.signature) : null));
        break;
      case "redacted-reasoning":
        output.push(reasoningItem(itemId("rs_"), null, encodeOpaque(block.data, true)));
        break;
      default: {
        const never: never = block;
        return never;
      }
    }
    parts = null;
  }
  const last = output.at(-1);
  if (outcome.status === "incomplete" && last?.type === "message") last.status = "incomplete";
  return responseObject(request, {
    id: derivedId("resp_", answer.id),
    createdAt: answer.created ?? nowSeconds(),
    model: answer.model,
    outcome,
    output,
    usage: answer.usage,
  });
}
