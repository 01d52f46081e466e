import type { EndpointName, Shape, UpstreamShapeAdapter, WireFormat } from "./types.ts";
import { chatCompletions, embeddings, imagesGenerations, openaiAdapter, responses } from "./openai/index.ts";
import { anthropicAdapter, messages, messagesCountTokens } from "./anthropic/index.ts";
import { geminiAdapter } from "./google.ts";
import { converseAdapter } from "../shapes/bedrock-converse/adapter.ts";
import { countTokens as geminiCountTokens, embedContent as geminiEmbedContent, generateContent as geminiGenerateContent } from "../shapes/gemini/wire.ts";

export type * from "./types.ts";

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

export const SHAPE_ADAPTERS: Record<Shape, UpstreamShapeAdapter> = {
  openai: openaiAdapter,
  anthropic: anthropicAdapter,
  gemini: geminiAdapter,
  "bedrock-converse": converseAdapter,
};
