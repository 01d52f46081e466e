import { EMPTY_USAGE, GatewayError, type Usage } from "@gateway/contracts";
import type { WireFormat } from "../../core/wire-format.ts";
import { asRecord, count, invalidField, optionalPositiveInteger, parseRequestFields } from "../../core/request-fields.ts";

/** OpenAI's own bound on the number of inputs in one embeddings request. */
const MAX_INPUTS = 2048;

const isTokenId = (value: unknown): boolean => typeof value === "number" && Number.isInteger(value) && value >= 0;

/**
 * `input` as OpenAI takes it (https://platform.openai.com/docs/api-reference/embeddings/create):
 * a non-empty string, an array of them, an array of token ids, or an array of token arrays. The
 * first item decides which array form it is; every item must then be of that form.
 */
function checkInput(input: unknown): void {
  if (typeof input === "string") {
    if (input.length === 0) throw invalidField("input", "expected a non-empty string");
    return;
  }
  if (!Array.isArray(input)) throw invalidField("input", "expected a string, an array of strings, an array of token ids or an array of token arrays");
  if (input.length === 0) throw invalidField("input", "expected at least one input");
  if (input.length > MAX_INPUTS) throw invalidField("input", `expected at most ${MAX_INPUTS} inputs`);
  const first = input[0];
  for (let index = 0; index < input.length; index += 1) {
    const item: unknown = input[index];
    const param = `input.${index}`;
    if (typeof first === "string") {
      if (typeof item !== "string" || item.length === 0) throw invalidField(param, "expected a non-empty string, as every item of an array of strings");
    } else if (isTokenId(first)) {
      if (!isTokenId(item)) throw invalidField(param, "expected a token id (a non-negative integer), as every item of an array of token ids");
    } else if (Array.isArray(first)) {
      if (!Array.isArray(item) || item.length === 0 || !item.every(isTokenId)) throw invalidField(param, "expected a non-empty array of token ids, as every item of an array of token arrays");
    } else {
      throw invalidField(param, "expected a string, a token id or an array of token ids");
    }
  }
}

/**
 * An embeddings answer's usage, `{prompt_tokens, total_tokens}`
 * (https://platform.openai.com/docs/api-reference/embeddings/object): all of it input.
 */
function embeddingsUsage(value: unknown): Usage | null {
  const usage = asRecord(value);
  return usage ? { ...EMPTY_USAGE, inputTokens: count(usage.prompt_tokens) } : null;
}

/** POST /v1/embeddings: relayed to OpenAI-shape upstreams, billed at the input price. */
export const embeddings: WireFormat = {
  endpoint: "embeddings",
  shape: "openai",
  upstreamPath: "/embeddings",
  parse(body) {
    const request = parseRequestFields(body, ["model", "input"]);
    const record = request.body;
    checkInput(record.input);
    const format = record.encoding_format;
    if (format !== undefined && format !== null && format !== "float" && format !== "base64") {
      throw invalidField("encoding_format", "expected float or base64");
    }
    optionalPositiveInteger(record, "dimensions");
    if (record.user !== undefined && record.user !== null && typeof record.user !== "string") throw invalidField("user", "expected a string");
    if (request.stream) throw new GatewayError("unsupported_feature", "stream: embeddings are not streamed", { param: "stream" });
    return request;
  },
  upstreamBody: (request, upstreamModel) => (request.body.model === upstreamModel ? null : { ...request.body, model: upstreamModel }),
  usageFromResponse: (body) => embeddingsUsage(asRecord(body)?.usage),
  createStreamTracker() {
    throw new Error("embeddings have no stream");
  },
  streamErrorEvent: () => "",
};
