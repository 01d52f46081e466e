import type { ModelCapabilities } from "@gateway/redis-store";
import type { EndpointName } from "../upstreams/index.ts";
import { asRecord } from "../upstreams/request-fields.ts";

/*
 * What a model does not take, read from its capabilities (contract section 15) on the CLIENT's body,
 * before any translation: so the paths are the client's, the same whether the target speaks its
 * shape or not, and a translator never maps a field the model would refuse (Claude Code's
 * `thinking` / `output_config.effort` never become `reasoning_effort` for gpt-4o-mini).
 */

/** Sampling settings, in every shape: a model with `sampling: false` takes none of them. */
const SAMPLING_FIELDS = ["temperature", "top_p", "top_k"] as const;

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

const isSet = (value: unknown): boolean => value !== undefined && value !== null;

/** "No reasoning, please": the model does that anyway, so removing it changes nothing the client gets. */
const asksForNone = (value: unknown): boolean => value === "none" || asRecord(value)?.type === "disabled";

const NO_REASONING = "the model takes no reasoning settings (capabilities.reasoning: false)";
const NO_SAMPLING = "the model takes no sampling settings (capabilities.sampling: false)";

function topLevel(body: Record<string, unknown>, field: string, why: string, drops: CapabilityDrop[], silent = false): void {
  if (!isSet(body[field])) return;
  drops.push({ path: field, why, silent, remove: (copy) => delete copy[field] });
}

/** A member of a nested object (`output_config.effort`): the object goes too when nothing else is left in it. */
function nested(body: Record<string, unknown>, parent: string, field: string, why: string, drops: CapabilityDrop[], silent = false): void {
  if (!isSet(asRecord(body[parent])?.[field])) return;
  drops.push({
    path: `${parent}.${field}`,
    why,
    silent,
    remove(copy) {
      const rest = { ...(copy[parent] as Record<string, unknown>) };
      delete rest[field];
      if (Object.values(rest).some(isSet)) copy[parent] = rest;
      else delete copy[parent];
    },
  });
}

/** Gemini's sampling settings (`generationConfig.*`). */
const GEMINI_SAMPLING_FIELDS = ["temperature", "topP", "topK"] as const;

function reasoningDrops(body: Record<string, unknown>, endpoint: EndpointName, drops: CapabilityDrop[]): void {
  switch (endpoint) {
    case "chat.completions":
      topLevel(body, "reasoning_effort", NO_REASONING, drops, body.reasoning_effort === "none");
      return;
    case "responses": {
      const reasoning = asRecord(body.reasoning);
      if (reasoning) {
        // Every member is listed by its path; the whole object goes (a `{}` left behind asks for nothing).
        for (const field of Object.keys(reasoning)) {
          if (!isSet(reasoning[field])) continue;
          const silent = field === "effort" && reasoning.effort === "none";
          drops.push({ path: `reasoning.${field}`, why: NO_REASONING, silent, remove: (copy) => delete copy.reasoning });
        }
      } else topLevel(body, "reasoning", NO_REASONING, drops);
      // Encrypted reasoning to carry to the next turn: a model that does not reason has none.
      if (Array.isArray(body.include) && body.include.includes("reasoning.encrypted_content")) {
        const include = body.include;
        include.forEach((value, index) => {
          if (value !== "reasoning.encrypted_content") return;
          drops.push({
            path: `include[${index}]`,
            why: NO_REASONING,
            silent: false,
            remove(copy) {
              const kept = (copy.include as unknown[]).filter((item) => item !== "reasoning.encrypted_content");
              if (kept.length > 0) copy.include = kept;
              else delete copy.include;
            },
          });
        });
      }
      return;
    }
    case "messages":
    case "messages.count_tokens":
      topLevel(body, "thinking", NO_REASONING, drops, asksForNone(body.thinking));
      nested(body, "output_config", "effort", NO_REASONING, drops);
      return;
    case "gemini.generate_content":
    case "gemini.count_tokens":
      nested(body, "generationConfig", "thinkingConfig", NO_REASONING, drops, asRecord(asRecord(body.generationConfig)?.thinkingConfig)?.thinkingBudget === 0);
      return;
    case "images.generations":
    case "embeddings":
    case "gemini.embed_content":
      return;
    default: {
      const never: never = endpoint;
      return never;
    }
  }
}

/**
 * The fields of the client's body its model does not take, in body order of kind (reasoning, then
 * sampling); empty for the common request. Reads a few top-level fields: no copy, no JSON work.
 */
export function capabilityDrops(body: Record<string, unknown>, endpoint: EndpointName, capabilities: ModelCapabilities): readonly CapabilityDrop[] {
  if (!mayHold(body, endpoint, capabilities)) return NONE;
  const drops: CapabilityDrop[] = [];
  if (!capabilities.reasoning) reasoningDrops(body, endpoint, drops);
  if (!capabilities.sampling && endpoint === "gemini.generate_content") {
    for (const field of GEMINI_SAMPLING_FIELDS) nested(body, "generationConfig", field, NO_SAMPLING, drops);
  } else if (!capabilities.sampling && endpoint !== "images.generations" && endpoint !== "embeddings") {
    for (const field of SAMPLING_FIELDS) topLevel(body, field, NO_SAMPLING, drops);
  }
  return drops;
}

/**
 * Whether the body may hold a field the model does not take: a few property reads, so the common
 * request (OpenAI-family models take no reasoning, and most requests ask for none) allocates nothing.
 */
function mayHold(body: Record<string, unknown>, endpoint: EndpointName, capabilities: ModelCapabilities): boolean {
  // Gemini's sampling and thinking are inside `generationConfig`.
  if (endpoint === "gemini.generate_content") return !(capabilities.sampling && capabilities.reasoning) && isSet(body.generationConfig);
  if (!capabilities.sampling && (isSet(body.temperature) || isSet(body.top_p) || isSet(body.top_k))) return true;
  if (capabilities.reasoning) return false;
  switch (endpoint) {
    case "chat.completions":
      return isSet(body.reasoning_effort);
    case "responses":
      return isSet(body.reasoning) || Array.isArray(body.include);
    case "messages":
    case "messages.count_tokens":
      return isSet(body.thinking) || isSet(body.output_config);
    default:
      return false;
  }
}

/** The body without `drops` (a shallow copy; nested objects that change are copied, never edited). */
export function withoutCapabilityFields(body: Record<string, unknown>, drops: readonly CapabilityDrop[]): Record<string, unknown> {
  const copy = { ...body };
  for (const drop of drops) drop.remove(copy);
  return copy;
}
