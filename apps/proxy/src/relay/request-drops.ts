import type { ServerResponse } from "node:http";
import type { ModelCapabilities, ModelRecord } from "@gateway/redis-store";
import { WIRE_FORMATS } from "../shapes/wire-formats.ts";
import type { EndpointName, ParsedRequest } from "../core/wire-format.ts";
import type { Target } from "../routing/routing-table.ts";
import { unsupported } from "../core/fields.ts";
import { DROPPED_PARAMS_HEADER, DroppedParams, droppedParamsHeaderValue, withoutFields } from "../core/drops.ts";
import { foldSystemMessages, hasSystemMessage } from "../core/system-reminder.ts";
import { capabilityDrops, withoutCapabilityFields } from "./capability-drops.ts";
import { planTargets, type PlannedTarget } from "./attempt-plan.ts";

/** A model without mid-conversation system messages, as `withSystemFolded` reads it. */
const FOLDED = Object.freeze({ midConversationSystem: false });

/** Nothing dropped: one shared empty list. */
const NO_FIELDS: readonly string[] = Object.freeze([]);

/** The client's request as every target starts from, and the client's paths taken out of it. */
export interface ClientDrops {
  /** The client's own request (the same object) when nothing was taken out. */
  request: ParsedRequest;
  dropped: readonly string[];
}

/**
 * What the model does not take, removed from the CLIENT's request before any translation (so the
 * paths listed are the client's, whatever shape each target speaks): its `drop_params` (contract
 * section 11) and the fields its capabilities refuse (section 15: reasoning settings on a model
 * with `reasoning: false`, sampling on one with `sampling: false`). Under strict_params a capability
 * drop is the 400 naming the field instead. The common request (nothing of the kind in it) makes no
 * copy: the same request comes back, so its bytes can still be relayed as they came.
 */
export function clientRequestDrops(parsed: ParsedRequest, endpoint: EndpointName, model: Pick<ModelRecord, "dropParams" | "capabilities">, strict: boolean): ClientDrops {
  const dropParams = model.dropParams ?? NO_FIELDS;
  const byCapability = capabilityDrops(parsed.body, endpoint, model.capabilities);
  if (dropParams.length === 0 && byCapability.length === 0) return { request: parsed, dropped: NO_FIELDS };
  const modelDrop = withoutFields(parsed.body, dropParams);
  let body = modelDrop.body;
  // The model's own drop_params are the operator's choice, never the client's 400, strict or not.
  const listed = new DroppedParams(strict);
  const remaining = byCapability.filter((drop) => !modelDrop.removed.includes(drop.path));
  for (const drop of remaining) if (!drop.silent) listed.drop(drop.path, drop.why);
  if (remaining.length > 0) body = withoutCapabilityFields(body, remaining);
  const dropped = listed.paths.length === 0 ? modelDrop.removed : [...modelDrop.removed, ...listed.paths];
  return { request: body === parsed.body ? parsed : { ...parsed, body }, dropped };
}

export interface RequestDrops {
  /** Fields removed from the client's request before translation (`clientRequestDrops`, the lowered output field). */
  modelDropped: readonly string[];
  /** `models[].drop_params`: also removed from a translated request, whatever the translation wrote. */
  dropParams: readonly string[];
  /** The client sent `anthropic-beta`: it never goes cross-shape, so it is dropped there. */
  betas: boolean;
  strict: boolean;
  /** The client's endpoint: with the translation, which shape each target's upstream reads. */
  endpoint?: EndpointName;
  /**
   * The model takes no `role: "system"` inside Anthropic `messages` (capabilities
   * `mid_conversation_system: false`): an Anthropic-shape upstream gets them as `<system-reminder>`
   * text in the next user turn. Never listed: the model still reads every word.
   */
  foldSystem?: boolean;
}

/**
 * A Messages request as an Anthropic-shape upstream whose model takes no mid-conversation system
 * messages must get it: those folded into `<system-reminder>` user text. The same request when the
 * model takes them or there is none (no copy). Also used by the token count (routes/v1-count-tokens.ts).
 */
export function withSystemFolded(request: ParsedRequest, capabilities: Pick<ModelCapabilities, "midConversationSystem">): ParsedRequest {
  if (capabilities.midConversationSystem || !hasSystemMessage(request.body.messages)) return request;
  return { ...request, body: { ...request.body, messages: foldSystemMessages(request.body.messages as unknown[]) } };
}

/** Whether this target's upstream body is Anthropic Messages with a system message inside `messages`. */
function foldsSystem(planned: PlannedTarget, endpoint: EndpointName | undefined): boolean {
  const upstreamEndpoint = planned.translation ? planned.translation.upstreamWire.endpoint : endpoint;
  return upstreamEndpoint === "messages" && hasSystemMessage(planned.upstreamRequest.body.messages);
}

/**
 * What the gateway removes besides the translation's own drops, per planned target: the model's
 * `drop_params` (same shape too), cross-shape the client's betas, and mid-conversation system
 * messages folded for a model without them. Under strict_params a cross-shape target cannot take
 * the betas; the request goes to the targets that can, or is the 400 naming `anthropic-beta` when
 * none can.
 */
export function withRequestDrops(planned: PlannedTarget[], drops: RequestDrops): PlannedTarget[] {
  let fold = false;
  if (drops.foldSystem) for (const target of planned) fold ||= foldsSystem(target, drops.endpoint);
  // The common request: no drop_params on the model, no betas, nothing to fold, so nothing to add (no copies).
  if (drops.modelDropped.length === 0 && drops.dropParams.length === 0 && !drops.betas && !fold) return planned;
  const kept: PlannedTarget[] = [];
  // Targets of one translation (or of none) share their request: folded once.
  const foldedRequests = new Map<ParsedRequest, ParsedRequest>();
  for (const target of planned) {
    const dropped = [...drops.modelDropped];
    let upstreamRequest = target.upstreamRequest;
    if (fold && foldsSystem(target, drops.endpoint)) {
      let folded = foldedRequests.get(upstreamRequest);
      if (!folded) {
        folded = withSystemFolded(upstreamRequest, FOLDED);
        foldedRequests.set(upstreamRequest, folded);
      }
      upstreamRequest = folded;
    }
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
    const unchanged = dropped.length === 0 && upstreamRequest === target.upstreamRequest;
    kept.push(unchanged ? target : { ...target, upstreamRequest, droppedParams: dropped.length === 0 ? target.droppedParams : [...dropped, ...target.droppedParams] });
  }
  if (kept.length === 0) {
    throw unsupported("anthropic-beta", "Anthropic betas cannot be sent to this model's upstream, which is not Anthropic-shape; strict_params is on, so they are refused instead of dropped");
  }
  return kept;
}

/**
 * A token count's plan (routes/v1-count-tokens.ts): the targets it may use, each with the Messages
 * request it gets and the paths it lists, made by the plan /v1/messages makes (`planTargets`, then
 * `withRequestDrops`): a count and a send of one body drop, fold and list the same fields, and the
 * count keeps no list of its own. `client`: the client's request after `clientRequestDrops`.
 */
export function countPlan(targets: readonly Target[], client: ClientDrops, model: Pick<ModelRecord, "dropParams" | "capabilities">, betas: boolean, strict: boolean): PlannedTarget[] {
  return withRequestDrops(planTargets(targets, WIRE_FORMATS.messages, client.request, strict), {
    modelDropped: client.dropped,
    dropParams: model.dropParams ?? NO_FIELDS,
    betas,
    strict,
    endpoint: "messages",
    foldSystem: !model.capabilities.midConversationSystem,
  });
}

/** `x-gateway-dropped-params` for the answer about to be written: the plan's paths, or no header when it dropped none. */
export function setDroppedParamsHeader(response: ServerResponse, dropped: readonly string[]): void {
  const value = droppedParamsHeaderValue(dropped);
  if (value) response.setHeader(DROPPED_PARAMS_HEADER, value);
  else response.removeHeader(DROPPED_PARAMS_HEADER);
}

const NO_BETAS: readonly string[] = Object.freeze([]);

/** The `anthropic-beta` values the client sent (several headers or comma-separated lists), trimmed. */
export function clientBetas(value: string | string[] | undefined): readonly string[] {
  if (value === undefined) return NO_BETAS;
  const values = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return values.flatMap((entry) => entry.split(",")).map((beta) => beta.trim()).filter((beta) => beta.length > 0);
}
