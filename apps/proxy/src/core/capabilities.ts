import type { ModelCapabilities } from "@gateway/redis-store";
import { asRecord } from "./request-fields.ts";
import { isSet } from "./fields.ts";

/*
 * What a model does not take, by its capabilities (contract section 15), applied to the CLIENT's
 * body before any translation: so the paths are the client's, the same whether the target speaks
 * its shape or not, and a writer never maps a field the model would refuse (Claude Code's
 * `thinking` / `output_config.effort` never become `reasoning_effort` for gpt-4o-mini). The rule is
 * written once here; each shape declares where its body says each capability (`CapabilityFields`,
 * `shapes/<shape>/capabilities.ts`), so the same decision serves the same-shape path too.
 */

/** Where one setting sits in a shape's body. `silent`: a value asking for what the model does anyway (removed, never listed or refused). */
export type FieldRule =
  /** A top-level field (`reasoning_effort`, `temperature`). */
  | { top: string; silent?: (value: unknown) => boolean }
  /** A member of a top-level object (`output_config.effort`); the object goes too when nothing else is left in it. */
  | { parent: string; member: string; silent?: (value: unknown) => boolean }
  /** Every member of a top-level object, each listed by its path, the whole object removed (`reasoning.*`: a `{}` left behind asks for nothing). */
  | { members: string; silent?: (member: string, value: unknown) => boolean }
  /** The entries of a top-level array equal to `value` (`include[i]` = `reasoning.encrypted_content`). */
  | { array: string; value: string };

/** Where a shape's body says each capability's settings. */
export interface CapabilityFields {
  reasoning: readonly FieldRule[];
  sampling: readonly FieldRule[];
}

/** One field to take out of the client's body: listed as `path`, unless it changes nothing. */
export interface CapabilityDrop {
  /** The client's path, as `x-gateway-dropped-params` lists it (`reasoning.effort`, `include[2]`). */
  path: string;
  why: string;
  /** A value asking for what the model does anyway (`thinking: {type: disabled}`): removed, never listed or refused. */
  silent: boolean;
  remove(body: Record<string, unknown>): void;
}

const NONE: readonly CapabilityDrop[] = Object.freeze([]);

const NO_REASONING = "the model takes no reasoning settings (capabilities.reasoning: false)";
const NO_SAMPLING = "the model takes no sampling settings (capabilities.sampling: false)";

/** The top-level field a rule reads first. */
function head(rule: FieldRule): string {
  return "top" in rule ? rule.top : "parent" in rule ? rule.parent : "members" in rule ? rule.members : rule.array;
}

function applyRule(body: Record<string, unknown>, rule: FieldRule, why: string, drops: CapabilityDrop[]): void {
  if ("top" in rule) {
    if (!isSet(body[rule.top])) return;
    drops.push({ path: rule.top, why, silent: rule.silent?.(body[rule.top]) ?? false, remove: (copy) => delete copy[rule.top] });
  } else if ("parent" in rule) {
    const value = asRecord(body[rule.parent])?.[rule.member];
    if (!isSet(value)) return;
    drops.push({
      path: `${rule.parent}.${rule.member}`,
      why,
      silent: rule.silent?.(value) ?? false,
      remove(copy) {
        const rest = { ...(copy[rule.parent] as Record<string, unknown>) };
        delete rest[rule.member];
        if (Object.values(rest).some(isSet)) copy[rule.parent] = rest;
        else delete copy[rule.parent];
      },
    });
  } else if ("members" in rule) {
    const object = asRecord(body[rule.members]);
    if (!object) return applyRule(body, { top: rule.members }, why, drops);
    for (const member of Object.keys(object)) {
      if (!isSet(object[member])) continue;
      drops.push({ path: `${rule.members}.${member}`, why, silent: rule.silent?.(member, object[member]) ?? false, remove: (copy) => delete copy[rule.members] });
    }
  } else {
    const values = body[rule.array];
    if (!Array.isArray(values)) return;
    values.forEach((value, index) => {
      if (value !== rule.value) return;
      drops.push({
        path: `${rule.array}[${index}]`,
        why,
        silent: false,
        remove(copy) {
          const kept = (copy[rule.array] as unknown[]).filter((item) => item !== rule.value);
          if (kept.length > 0) copy[rule.array] = kept;
          else delete copy[rule.array];
        },
      });
    });
  }
}

/**
 * Whether the body may hold a setting the model does not take: a few property reads, so the
 * common request (most models take what most requests ask for) allocates nothing.
 */
function mayHold(body: Record<string, unknown>, fields: CapabilityFields, capabilities: ModelCapabilities): boolean {
  if (!capabilities.sampling) for (const rule of fields.sampling) if (isSet(body[head(rule)])) return true;
  if (!capabilities.reasoning) for (const rule of fields.reasoning) if (isSet(body[head(rule)])) return true;
  return false;
}

/**
 * The settings of the client's body its model does not take, reasoning first, then sampling;
 * empty (one shared list) for the common request. `fields`: where the client's shape says them
 * (null: an endpoint with neither, images and embeddings).
 */
export function capabilityDrops(body: Record<string, unknown>, fields: CapabilityFields | null, capabilities: ModelCapabilities): readonly CapabilityDrop[] {
  if (!fields || !mayHold(body, fields, capabilities)) return NONE;
  const drops: CapabilityDrop[] = [];
  if (!capabilities.reasoning) for (const rule of fields.reasoning) applyRule(body, rule, NO_REASONING, drops);
  if (!capabilities.sampling) for (const rule of fields.sampling) applyRule(body, rule, NO_SAMPLING, drops);
  return drops;
}

/** The body without `drops` (a shallow copy; nested objects that change are copied, never edited). */
export function withoutCapabilityFields(body: Record<string, unknown>, drops: readonly CapabilityDrop[]): Record<string, unknown> {
  const copy = { ...body };
  for (const drop of drops) drop.remove(copy);
  return copy;
}

/** Sampling settings at the top level (chat, Messages, Responses). */
export const TOP_LEVEL_SAMPLING: readonly FieldRule[] = [{ top: "temperature" }, { top: "top_p" }, { top: "top_k" }];
