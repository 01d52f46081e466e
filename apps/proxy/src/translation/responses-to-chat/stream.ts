import { PartStream } from "../../core/pipeline.ts";
import { ChatChunksReader } from "../../shapes/openai-chat/reader/stream.ts";
import { ResponsesStreamWriter } from "../../shapes/openai-responses/writer/stream.ts";

/** `chat.completion.chunk`s -> Responses events: the chat reader feeding the Responses writer. */
export class ResponsesStreamFromChat extends PartStream {
  constructor(request: Record<string, unknown>) {
    super(new ResponsesStreamWriter(request), (sink) => new ChatChunksReader(sink, "call_"));
  }
}
