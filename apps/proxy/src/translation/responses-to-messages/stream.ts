import { PartStream } from "../../core/pipeline.ts";
import { AnthropicStreamReader } from "../../shapes/anthropic-messages/reader/stream.ts";
import { ResponsesStreamWriter } from "../../shapes/openai-responses/writer/stream.ts";

/** Anthropic stream events -> Responses events: the Anthropic reader feeding the Responses writer. */
export class ResponsesStreamFromMessages extends PartStream {
  constructor(request: Record<string, unknown>) {
    super(new ResponsesStreamWriter(request), (sink) => new AnthropicStreamReader(sink));
  }
}
