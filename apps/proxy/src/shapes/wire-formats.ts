import type { EndpointName, WireFormat } from "../core/wire-format.ts";
import { chatCompletions } from "./openai-chat/wire.ts";
import { responses } from "./openai-responses/wire.ts";
import { imagesGenerations } from "./openai-images/wire.ts";
import { embeddings } from "./openai-embeddings/wire.ts";
import { messages } from "./anthropic-messages/wire.ts";
import { messagesCountTokens } from "./anthropic-messages/count-tokens.ts";
import { countTokens as geminiCountTokens, embedContent as geminiEmbedContent, generateContent as geminiGenerateContent } from "./gemini/wire.ts";

/** Each endpoint's wire format (its shape's `wire.ts`): path, required fields, usage capture, stream tracker. */
export const WIRE_FORMATS: Record<EndpointName, WireFormat> = {
  "chat.completions": chatCompletions,
  messages,
  responses,
  "images.generations": imagesGenerations,
  embeddings,
  "messages.count_tokens": messagesCountTokens,
  "gemini.generate_content": geminiGenerateContent,
  "gemini.count_tokens": geminiCountTokens,
  "gemini.embed_content": geminiEmbedContent,
};
