import type { Shape } from "@gateway/contracts";
import type { UpstreamShapeAdapter } from "./shape-adapter.ts";
import { openaiAdapter } from "./openai.ts";
import { anthropicAdapter } from "./anthropic.ts";
import { geminiAdapter } from "./google.ts";
import { converseAdapter } from "../shapes/bedrock-converse/adapter.ts";

export type { UpstreamShapeAdapter };

/**
 * How the gateway talks to an upstream of each shape: its auth headers and how its error bodies
 * read. Transport and auth only; what a request and its answer look like on the wire is the
 * shape's (shapes/wire-formats.ts).
 */
export const SHAPE_ADAPTERS: Record<Shape, UpstreamShapeAdapter> = {
  openai: openaiAdapter,
  anthropic: anthropicAdapter,
  gemini: geminiAdapter,
  "bedrock-converse": converseAdapter,
};
