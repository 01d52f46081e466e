import { EMPTY_USAGE, GatewayError } from "@gateway/contracts";
import type { WireFormat } from "../../core/wire-format.ts";
import { asRecord, count, invalidField, optionalPositiveInteger, parseRequestFields } from "../../core/request-fields.ts";

export const imagesGenerations: WireFormat = {
  endpoint: "images.generations",
  shape: "openai",
  upstreamPath: "/images/generations",
  parse(body) {
    const request = parseRequestFields(body, ["model", "prompt"]);
    const prompt = request.body.prompt;
    if (typeof prompt !== "string" || prompt.length === 0) throw invalidField("prompt", "expected a non-empty string");
    optionalPositiveInteger(request.body, "n", 10);
    if (request.stream) {
      throw new GatewayError("unsupported_feature", "stream: streamed image generation is not supported by this gateway", { param: "stream" });
    }
    return request;
  },
  upstreamBody: (request, upstreamModel) => (request.body.model === upstreamModel ? null : { ...request.body, model: upstreamModel }),
  /**
   * The images made, and for the GPT image models their tokens: `usage` is `{input_tokens,
   * output_tokens, total_tokens}` with text/image details that are priced alike
   * (https://platform.openai.com/docs/api-reference/images/object); DALL-E sends none.
   */
  usageFromResponse(body) {
    const record = asRecord(body);
    const images = Array.isArray(record?.data) ? record.data.length : 0;
    const usage = asRecord(record?.usage);
    return { ...EMPTY_USAGE, inputTokens: count(usage?.input_tokens), outputTokens: count(usage?.output_tokens), images };
  },
  createStreamTracker() {
    throw new Error("images.generations has no stream");
  },
  streamErrorEvent: () => "",
};
