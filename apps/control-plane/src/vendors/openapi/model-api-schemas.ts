import { z } from "zod";
import { clientShapeSchema } from "@gateway/contracts";

/**
 * The model API's bodies (`/v1`, served by the proxy), loosely: the proxy checks only the fields
 * it relies on (`model`, `messages`, `max_tokens`, `stream`, `prompt`) and passes every other one
 * through to the upstream, so these are the OpenAI and Anthropic bodies' key fields, open to the
 * rest. The official SDKs' types are the full reference.
 */
const modelName = z.string().min(1).describe("A model name from GET /v1/models, or one of its aliases.");
const stream = z.boolean().optional().describe("`true`: a `text/event-stream` of the endpoint's native events.");
const passThrough = "Every other field (tools, temperature, response_format, metadata, ...) passes through to the upstream untouched.";
const part = z.looseObject({ type: z.string() });
const content = z.union([z.string(), z.array(part)]);

export const chatCompletionRequestSchema = z
  .looseObject({
    model: modelName,
    messages: z.array(z.looseObject({ role: z.string(), content: content.nullable().optional() })).describe("The conversation; `content` a string or an array of content parts."),
    stream,
    stream_options: z.looseObject({ include_usage: z.boolean().optional() }).optional(),
    max_completion_tokens: z.number().int().positive().optional(),
  })
  .describe(`An OpenAI Chat Completions request. ${passThrough}`);

export const responseRequestSchema = z
  .looseObject({ model: modelName, input: content.optional().describe("Text, or an array of input items."), instructions: z.string().optional(), stream })
  .describe(`An OpenAI Responses request. ${passThrough}`);

export const messageRequestSchema = z
  .looseObject({
    model: modelName,
    max_tokens: z.number().int().min(1).describe("The most tokens to generate."),
    messages: z.array(z.looseObject({ role: z.enum(["user", "assistant"]), content })).describe("The conversation; `content` a string or an array of content blocks."),
    system: content.optional(),
    stream,
  })
  .describe(`An Anthropic Messages request. ${passThrough}`);

export const imageGenerationRequestSchema = z
  .looseObject({ model: modelName, prompt: z.string().describe("What to draw."), n: z.number().int().min(1).optional(), size: z.string().optional() })
  .describe(`An OpenAI image generation request; \`stream: true\` is refused (400). ${passThrough}`);

export const countTokensRequestSchema = z
  .looseObject({
    model: modelName,
    messages: z.array(z.looseObject({ role: z.enum(["user", "assistant"]), content })).describe("The conversation; `content` a string or an array of content blocks."),
    system: content.optional(),
    tools: z.array(z.looseObject({ name: z.string() })).optional(),
  })
  .describe(`An Anthropic Messages request without \`max_tokens\`; a body /v1/messages refuses (bar \`max_tokens\`) is the same 400 here. ${passThrough}`);

export const embeddingRequestSchema = z
  .looseObject({
    model: modelName,
    input: z
      .union([z.string().min(1), z.array(z.string().min(1)).min(1).max(2048), z.array(z.number().int().min(0)).min(1), z.array(z.array(z.number().int().min(0)).min(1)).min(1).max(2048)])
      .describe("A string, an array of strings, an array of token ids, or an array of token arrays."),
    encoding_format: z.enum(["float", "base64"]).optional().describe("`base64`: each embedding as little-endian float32 bytes in base64."),
    dimensions: z.number().int().min(1).optional(),
  })
  .describe(`An OpenAI embeddings request. ${passThrough}`);

const chatUsage = z.looseObject({ prompt_tokens: z.number().int(), completion_tokens: z.number().int(), total_tokens: z.number().int() });

export const chatCompletionSchema = z.looseObject({
  id: z.string(),
  object: z.literal("chat.completion"),
  created: z.number().int(),
  model: z.string(),
  choices: z.array(z.looseObject({ index: z.number().int(), message: z.looseObject({ role: z.literal("assistant"), content: z.string().nullable() }), finish_reason: z.string().nullable() })),
  usage: chatUsage.optional(),
});

export const responseSchema = z.looseObject({
  id: z.string(),
  object: z.literal("response"),
  created_at: z.number(),
  model: z.string(),
  status: z.string().describe("completed, incomplete, failed, ..."),
  output: z.array(part).describe("Output items: message, function_call, reasoning, ..."),
  usage: z.looseObject({ input_tokens: z.number().int(), output_tokens: z.number().int(), total_tokens: z.number().int() }).nullable().optional(),
});

export const messageSchema = z.looseObject({
  id: z.string(),
  type: z.literal("message"),
  role: z.literal("assistant"),
  model: z.string(),
  content: z.array(part).describe("Content blocks: text, tool_use, thinking, ..."),
  stop_reason: z.string().nullable(),
  usage: z.looseObject({ input_tokens: z.number().int(), output_tokens: z.number().int() }),
});

export const imagesResponseSchema = z.looseObject({
  created: z.number().int(),
  data: z.array(z.looseObject({ url: z.string().optional(), b64_json: z.string().optional(), revised_prompt: z.string().optional() })),
});

export const countTokensSchema = z.object({ input_tokens: z.number().int().min(0).describe("Tokens the request would take as input.") });

export const embeddingListSchema = z.looseObject({
  object: z.literal("list"),
  data: z.array(z.looseObject({ object: z.literal("embedding"), index: z.number().int(), embedding: z.union([z.array(z.number()), z.string()]).describe("Floats, or base64 with `encoding_format: base64`.") })),
  model: z.string(),
  usage: z.looseObject({ prompt_tokens: z.number().int(), total_tokens: z.number().int() }),
});

/** GET /v1 (contract section 5). */
export const discoverySchema = z.object({
  service: z.string(),
  status: z.enum(["ok", "degraded"]).describe("`ok` when the proxy can serve (its Redis answers), else `degraded` (still 200)."),
  endpoints: z.record(z.string(), z.string()).describe("What each endpoint is, e.g. `chat_completions: \"POST /v1/chat/completions\"`."),
  compatible_with: z.array(clientShapeSchema).describe("The client APIs the gateway answers in: every shape."),
});

/** GET /v1/models and /v1/models/{id}: one shape both SDKs read (contract section 5). */
export const modelSchema = z.object({
  id: z.string().describe("The public model name."),
  object: z.literal("model"),
  type: z.literal("model"),
  created: z.number().int().describe("Unix seconds."),
  created_at: z.iso.datetime({ offset: true }),
  owned_by: z.string(),
  display_name: z.string(),
});

export const modelListSchema = z.object({
  object: z.literal("list"),
  data: z.array(modelSchema).describe("Exactly the models the key's server option allows."),
  has_more: z.boolean(),
  first_id: z.string().nullable(),
  last_id: z.string().nullable(),
});
