import type { Translation } from "../../translation/types.ts";
import type { EndpointName, Shape } from "../../upstreams/index.ts";
import { unsupported } from "../../core/fields.ts";

/** Placeholder until the pairs are composed from the shape sides (shapes/index.ts). */
export function toGemini(endpoint: EndpointName): Translation {
  throw unsupported("model", `${endpoint} requests do not reach a Gemini-shape upstream yet`);
}

export function fromGemini(shape: Shape): Translation {
  throw unsupported("model", `Gemini requests do not reach a ${shape}-shape upstream yet`);
}
