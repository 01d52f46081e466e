import { PartStream } from "../../core/pipeline.ts";
import { AnthropicStreamReader } from "../../shapes/anthropic-messages/reader/stream.ts";
import { ChatStreamWriter } from "../../shapes/openai-chat/writer/stream.ts";

/** Anthropic stream events -> `chat.completion.chunk`s: the Anthropic reader feeding the chat writer. */
export class ChatStreamFromMessages extends PartStream {
  constructor(showUsage: boolean) {
    super(new ChatStreamWriter(showUsage), (sink) => new AnthropicStreamReader(sink));
  }
}
