import { EMPTY_USAGE, GatewayError } from "@gateway/contracts";
import type { WireFormat } from "../types.ts";
import { asRecord, invalidField, optionalPositiveInteger, parseRequestFields } from "../request-fields.ts";
import { responsesUsage } from "./usage.ts";

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
  usageFromResponse(body) {
    const record = asRecord(body);
    const images = Array.isArray(record?.data) ? record.data.length : 0;
    return responsesUsage(record?.usage, images) ?? { ...EMPTY_USAGE, images };
  },
  createStreamTracker() {
    throw new Error("images.generations has no stream");
  },
  streamErrorEvent: () => "",
};
