import { unsupported } from "../translation/shared/fields.ts";
import { withoutFields } from "../translation/shared/dropped-params.ts";
import type { PlannedTarget } from "./attempt-plan.ts";

export interface RequestDrops {
  /** Fields `models[].drop_params` removed from the client's request (already gone from it). */
  modelDropped: readonly string[];
  /** `models[].drop_params`: also removed from a translated request, whatever the translation wrote. */
  dropParams: readonly string[];
  /** The client sent `anthropic-beta`: it never goes cross-shape, so it is dropped there. */
  betas: boolean;
  strict: boolean;
}

/**
 * What the gateway removes besides the translation's own drops, per planned target: the model's
 * `drop_params` (same shape too) and, cross-shape, the client's betas. Under strict_params a
 * cross-shape target cannot take the betas; the request goes to the targets that can, or is the
 * 400 naming `anthropic-beta` when none can.
 */
export function withRequestDrops(planned: PlannedTarget[], drops: RequestDrops): PlannedTarget[] {
  // The common request: no drop_params on the model and no betas, so nothing to add (no copies).
  if (drops.modelDropped.length === 0 && drops.dropParams.length === 0 && !drops.betas) return planned;
  const kept: PlannedTarget[] = [];
  for (const target of planned) {
    const dropped = [...drops.modelDropped];
    let upstreamRequest = target.upstreamRequest;
    if (target.translation) {
      if (drops.betas) {
        if (drops.strict) continue;
        dropped.push("anthropic-beta");
      }
      const stripped = withoutFields(upstreamRequest.body, drops.dropParams);
      if (stripped.removed.length > 0) {
        upstreamRequest = { ...upstreamRequest, body: stripped.body };
        dropped.push(...stripped.removed);
      }
    }
    kept.push(dropped.length === 0 ? target : { ...target, upstreamRequest, droppedParams: [...dropped, ...target.droppedParams] });
  }
  if (kept.length === 0) {
    throw unsupported("anthropic-beta", "Anthropic betas cannot be sent to this model's upstream, which is not Anthropic-shape; strict_params is on, so they are refused instead of dropped");
  }
  return kept;
}

const NO_BETAS: readonly string[] = Object.freeze([]);

/** The `anthropic-beta` values the client sent (several headers or comma-separated lists), trimmed. */
export function clientBetas(value: string | string[] | undefined): readonly string[] {
  if (value === undefined) return NO_BETAS;
  const values = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return values.flatMap((entry) => entry.split(",")).map((beta) => beta.trim()).filter((beta) => beta.length > 0);
}
