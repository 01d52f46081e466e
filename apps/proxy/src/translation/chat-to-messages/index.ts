import { WIRE_FORMATS } from "../../upstreams/index.ts";
import { asRecord } from "../../upstreams/request-fields.ts";
import type { Translation } from "../types.ts";
import { messagesRequestFromChat } from "./request.ts";
import { chatCompletionFromMessage } from "./response.ts";
import { ChatStreamFromMessages } from "./stream.ts";

/** A /v1/chat/completions call served by an Anthropic-shape upstream. */
export const chatToMessages: Translation = {
  name: "chat-to-messages",
  upstreamWire: WIRE_FORMATS.messages,
  request: (client, dropped) => ({ ...client, body: messagesRequestFromChat(client.body, dropped, client.outputBound) }),
  response: (upstreamBody) => chatCompletionFromMessage(upstreamBody),
  stream: (client) => new ChatStreamFromMessages(asRecord(client.body.stream_options)?.include_usage === true),
};
