import { PartStream } from "../../core/pipeline.ts";
import { MessagesStreamWriter } from "../../shapes/anthropic-messages/writer/stream.ts";
import { ChatChunksReader } from "../../shapes/openai-chat/reader/stream.ts";

/** `chat.completion.chunk`s -> Anthropic stream events: the chat reader feeding the Messages writer. */
export class MessagesStreamFromChat extends PartStream {
  /** `model`: the client's model name, the message's model when the upstream names none. */
  constructor(model: unknown = null) {
    super(new MessagesStreamWriter(model), (sink) => new ChatChunksReader(sink, "toolu_"));
  }
}
