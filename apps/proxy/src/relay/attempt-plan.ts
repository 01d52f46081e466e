import { GatewayError } from "@gateway/contracts";
import type { ParsedRequest, WireFormat } from "../upstreams/index.ts";
import type { Target } from "../routing/routing-table.ts";
import { translationFor, type Translation, type TranslationName } from "../translation/index.ts";

/** One target and how the client's request reaches it. */
export interface PlannedTarget {
  target: Target;
  /** null: the upstream speaks the client's shape and its bytes are relayed as they come. */
  translation: Translation | null;
  /** The request in the upstream's shape (the client's own when there is no translation). */
  upstreamRequest: ParsedRequest;
}

/**
 * Decides, per target and before any upstream call, whether the client's request reaches it as is
 * or translated. Each translation runs once per request. A target the request cannot be translated
 * for is left out, so a same-shape target still serves it; when none is left the client gets the
 * first refusal: a 400 naming the field the other shape cannot express.
 */
export function planTargets(targets: readonly Target[], wire: WireFormat, request: ParsedRequest): PlannedTarget[] {
  const translated = new Map<TranslationName, ParsedRequest | GatewayError>();
  const planned: PlannedTarget[] = [];
  let refusal: GatewayError | null = null;
  for (const target of targets) {
    try {
      const translation = translationFor(wire.endpoint, target.upstream);
      if (!translation) {
        planned.push({ target, translation, upstreamRequest: request });
        continue;
      }
      let upstreamRequest = translated.get(translation.name);
      if (upstreamRequest === undefined) {
        upstreamRequest = translateOnce(translation, request);
        translated.set(translation.name, upstreamRequest);
      }
      if (upstreamRequest instanceof GatewayError) throw upstreamRequest;
      planned.push({ target, translation, upstreamRequest });
    } catch (error) {
      if (!(error instanceof GatewayError)) throw error;
      refusal ??= error;
    }
  }
  if (planned.length > 0) return planned;
  throw refusal ?? new GatewayError("unsupported_feature", `Model ${request.model} has no upstream for the ${wire.endpoint} endpoint.`, { param: "model" });
}

function translateOnce(translation: Translation, request: ParsedRequest): ParsedRequest | GatewayError {
  try {
    return translation.request(request);
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
}
