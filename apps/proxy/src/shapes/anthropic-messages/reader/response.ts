import type { Answer, AnswerBlock } from "../../../core/answer.ts";
import { list } from "../../../core/fields.ts";
import type { Source } from "../../../core/stream-parts.ts";
import { argumentsFromToolInput } from "../../../core/tool-input.ts";
import { asRecord } from "../../../core/request-fields.ts";
import { finishFromAnthropic } from "../finish.ts";
import { anthropicUsage } from "../usage.ts";
import { citationSource, searchSources, webSearchQuery } from "../web-search.ts";

/**
 * An Anthropic message -> a neutral answer, block by block: text (its web search citations as
 * sources), thinking and redacted_thinking (signature and data opaque, from Anthropic), tool_use
 * (input as JSON text), a web search (server_tool_use, completed by its web_search_tool_result).
 */
export function answerFromMessage(upstream: unknown): Answer {
  const message = asRecord(upstream) ?? {};
  const blocks: AnswerBlock[] = [];
  const searches = new Map<string, Extract<AnswerBlock, { type: "search" }>>();
  for (const raw of list(message.content)) {
    const block = asRecord(raw);
    switch (block?.type) {
      case "text": {
        const sources = list(block.citations).flatMap((citation): Source[] => {
          const source = citationSource(citation);
          return source ? [source] : [];
        });
        blocks.push({ type: "text", text: typeof block.text === "string" ? block.text : "", sources });
        break;
      }
      case "tool_use":
        blocks.push({ type: "tool-call", callId: String(block.id), name: String(block.name), input: argumentsFromToolInput(block.input) });
        break;
      case "server_tool_use": {
        // Only web search is ever asked for (the request writers refuse other server tools).
        const search = { type: "search" as const, id: String(block.id), query: webSearchQuery(block.input), sources: [], failed: false };
        searches.set(search.id, search);
        blocks.push(search);
        break;
      }
      case "web_search_tool_result": {
        const search = searches.get(String(block.tool_use_id));
        const sources = searchSources(block.content);
        if (search && sources === null) search.failed = true;
        else if (search) search.sources = sources ?? [];
        break;
      }
      case "thinking":
        blocks.push({ type: "reasoning", text: String(block.thinking ?? ""), signature: typeof block.signature === "string" ? { origin: "anthropic", value: block.signature } : null });
        break;
      case "redacted_thinking":
        blocks.push({ type: "redacted-reasoning", data: { origin: "anthropic", value: String(block.data) } });
        break;
      default:
        break;
    }
  }
  return {
    id: message.id,
    model: message.model,
    created: null,
    blocks,
    finish: finishFromAnthropic(message.stop_reason, message.stop_sequence ?? null),
    usage: anthropicUsage(message.usage),
  };
}
