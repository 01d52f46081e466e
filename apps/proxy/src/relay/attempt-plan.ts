import { GatewayError } from "@gateway/contracts";
import type { ModelCapabilities } from "@gateway/redis-store";
import type { ParsedRequest, WireFormat } from "../core/wire-format.ts";
import type { Target } from "../routing/routing-table.ts";
import { compatDrops } from "../upstreams/dialects/index.ts";
import { DroppedParams } from "../core/drops.ts";
import type { Translation, TranslationName } from "../core/pipeline.ts";
import { translationFor } from "../shapes/index.ts";

/** One target and how the client's request reaches it. */
export interface PlannedTarget {
  target: Target;
  /** null: the upstream speaks the client's shape and its bytes are relayed as they come. */
  translation: Translation | null;
  /** The request in the upstream's shape (the client's own when there is no translation). */
  upstreamRequest: ParsedRequest;
  /** Request paths the translation dropped (listed in `x-gateway-dropped-params`); empty same-shape. */
  droppedParams: readonly string[];
}

/** A same-shape target drops nothing: one shared empty list. */
const NONE_DROPPED: readonly string[] = Object.freeze([]);

interface Translated {
  request: ParsedRequest;
  dropped: readonly string[];
}

/**
 * Decides, per target and before any upstream call, whether the client's request reaches it as is
 * or translated. Each translation runs once per request. A target the request cannot be translated
 * for is left out, so a same-shape target still serves it; when none is left the client gets the
 * first refusal: a 400 naming the field the other shape cannot express. `capabilities`: the
 * model's, which a writer may read (which thinking field a Gemini model takes).
 */
export function planTargets(targets: readonly Target[], wire: WireFormat, request: ParsedRequest, strictParams = false, capabilities?: ModelCapabilities): PlannedTarget[] {
  // Made for the first translation only: the common request (same shape) makes none.
  let translated: Map<TranslationName, Translated | GatewayError> | null = null;
  const planned: PlannedTarget[] = [];
  let refusal: GatewayError | null = null;
  for (const target of targets) {
    try {
      const translation = translationFor(wire.endpoint, target.upstream);
      if (!translation) {
        planned.push(withCompatDrops({ target, translation, upstreamRequest: request, droppedParams: NONE_DROPPED }, wire));
        continue;
      }
      translated ??= new Map();
      let result = translated.get(translation.name);
      if (result === undefined) {
        result = translateOnce(translation, request, strictParams, capabilities);
        translated.set(translation.name, result);
      }
      if (result instanceof GatewayError) throw result;
      planned.push(withCompatDrops({ target, translation, upstreamRequest: result.request, droppedParams: result.dropped }, wire));
    } catch (error) {
      if (!(error instanceof GatewayError)) throw error;
      refusal ??= error;
    }
  }
  if (planned.length > 0) return planned;
  throw refusal ?? new GatewayError("unsupported_feature", `Model ${request.model} has no upstream for the ${wire.endpoint} endpoint.`, { param: "model" });
}

/** What the target's compat profile does not take (contract section 17), removed and listed; the same plan when nothing is. */
function withCompatDrops(plan: PlannedTarget, wire: WireFormat): PlannedTarget {
  const { request, dropped } = compatDrops(plan.target.upstream, plan.translation?.upstreamWire.endpoint ?? wire.endpoint, plan.upstreamRequest);
  return dropped.length === 0 ? plan : { ...plan, upstreamRequest: request, droppedParams: [...plan.droppedParams, ...dropped] };
}

function translateOnce(translation: Translation, request: ParsedRequest, strictParams: boolean, capabilities: ModelCapabilities | undefined): Translated | GatewayError {
  try {
    const dropped = new DroppedParams(strictParams);
    return { request: translation.request(request, dropped, capabilities), dropped: dropped.paths };
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
}

/**
 * The next target to try from `from` on, in the planned order, skipping those that timed out (a
 * timed-out attempt is retried only on another target: contract section 14); -1 when none is left.
 */
export function nextTarget(count: number, from: number, timedOut: ReadonlySet<number> | null): number {
  for (let step = 0; step < count; step += 1) {
    const index = (from + step) % count;
    if (timedOut === null || !timedOut.has(index)) return index;
  }
  return -1;
}
