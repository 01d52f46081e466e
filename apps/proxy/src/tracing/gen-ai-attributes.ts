import type { Attributes } from "@opentelemetry/api";
import type { EndpointName, ParsedRequest, Shape } from "../core/wire-format.ts";
import { requestedOutput } from "../core/output-bound.ts";

/**
 * The OpenTelemetry GenAI semantic conventions (latest experimental, Development status:
 * https://github.com/open-telemetry/semantic-conventions-genai/blob/main/docs/gen-ai/gen-ai-spans.md)
 * as this gateway fills them, in one place so a change of the conventions is one edit.
 */

/**
 * `gen_ai.operation.name` per endpoint: the conventions' well-known values where one applies
 * (Chat Completions, Messages and Responses all generate a chat answer; images are multimodal
 * content generation), a custom value otherwise.
 */
export const OPERATION_NAMES: Record<EndpointName, string> = {
  "chat.completions": "chat",
  messages: "chat",
  responses: "chat",
  "images.generations": "generate_content",
  embeddings: "embeddings",
  "messages.count_tokens": "count_tokens",
  "gemini.generate_content": "generate_content",
  "gemini.count_tokens": "count_tokens",
  "gemini.embed_content": "embeddings",
};

/**
 * `gen_ai.provider.name` per upstream shape: the provider whose API (and telemetry flavour) the
 * upstream speaks, a well-known value of the conventions. A new shape must name its own here.
 */
export const PROVIDER_NAMES: Record<Shape, string> = {
  openai: "openai",
  anthropic: "anthropic",
  gemini: "gcp.gemini",
  "bedrock-converse": "aws.bedrock",
};

/** The request fields read into `gen_ai.request.*` numbers, by the name each shape gives them. */
const NUMBER_FIELDS: readonly (readonly [string, string])[] = [
  ["temperature", "gen_ai.request.temperature"],
  ["top_p", "gen_ai.request.top_p"],
  ["top_k", "gen_ai.request.top_k"],
  ["frequency_penalty", "gen_ai.request.frequency_penalty"],
  ["presence_penalty", "gen_ai.request.presence_penalty"],
  ["seed", "gen_ai.request.seed"],
];

/**
 * The request's own settings as `gen_ai.request.*` attributes: a few property reads of the
 * client's parsed body (only ever called when spans are exported).
 */
export function requestAttributes(request: ParsedRequest, endpoint: EndpointName, attributes: Attributes): void {
  const body = request.body;
  attributes["gen_ai.request.stream"] = request.stream;
  for (const [field, name] of NUMBER_FIELDS) {
    const value = body[field];
    if (typeof value === "number") attributes[name] = value;
  }
  // The bound the request runs under; without one (a count), the field its API obeys (core/output-bound.ts).
  const maxTokens = request.outputBound ?? requestedOutput(body, endpoint);
  if (typeof maxTokens === "number") attributes["gen_ai.request.max_tokens"] = maxTokens;
  const stop = body.stop ?? body.stop_sequences;
  if (typeof stop === "string") attributes["gen_ai.request.stop_sequences"] = [stop];
  else if (Array.isArray(stop) && stop.every((item) => typeof item === "string")) attributes["gen_ai.request.stop_sequences"] = stop as string[];
  if (typeof body.n === "number" && body.n !== 1) attributes["gen_ai.request.choice.count"] = body.n;
}
