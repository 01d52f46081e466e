import { WIRE_FORMATS } from "../../upstreams/index.ts";
import type { Translation } from "../types.ts";
import { chatRequestFromMessages } from "./request.ts";
import { messageFromChatCompletion } from "./response.ts";
import { MessagesStreamFromChat } from "./stream.ts";

/** A /v1/messages call served by an OpenAI-shape upstream (Chat Completions). */
export const messagesToChat: Translation = {
  name: "messages-to-chat",
  upstreamWire: WIRE_FORMATS["chat.completions"],
  request: (client, dropped) => ({ ...client, body: chatRequestFromMessages(client.body, dropped, client.outputBound) }),
  response: (upstreamBody, client) => messageFromChatCompletion(upstreamBody, client.body),
  stream: (client) => new MessagesStreamFromChat(client.model),
};
