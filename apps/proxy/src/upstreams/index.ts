import type { EndpointName, Shape, UpstreamShapeAdapter, WireFormat } from "./types.ts";
import { chatCompletions, embeddings, imagesGenerations, openaiAdapter, responses } from "./openai/index.ts";
import { anthropicAdapter, messages, messagesCountTokens } from "./anthropic/index.ts";

export type * from "./types.ts";

export const WIRE_FORMATS: Record<EndpointName, WireFormat> = {
  "chat.completions": chatCompletions,
  messages,
  responses,
  "images.generations": imagesGenerations,
  embeddings,
  "messages.count_tokens": messagesCountTokens,
};

export const SHAPE_ADAPTERS: Record<Shape, UpstreamShapeAdapter> = {
  openai: openaiAdapter,
  anthropic: anthropicAdapter,
};
