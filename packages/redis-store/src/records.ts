import { BUDGET_PERIODS, shapeSchema, upstreamDialectSchema } from "@gateway/contracts";
import { z } from "zod";
import { PLAN_WINDOWS } from "./limit-types.ts";

/**
 * The customer a key belongs to, as every proxy needs it on the hot path (contract section 19):
 * written into each of its keys' records, rewritten (and the keys evicted) when the customer, its
 * budget or its subscription changes.
 */
export const customerRecordSchema = z.object({
  id: z.string(),
  /** A disabled customer's keys get 401 key_disabled. */
  status: z.enum(["active", "disabled"]),
  /** Prepaid: its keys draw on its wallet. */
  prepaid: z.boolean(),
  /** Its budget over all its keys, nano-USD per UTC period; null = none. */
  budget: z.object({ limitNano: z.string().regex(/^\d+$/), period: z.enum(BUDGET_PERIODS) }).nullable(),
  /** The active subscription's plan, null = none. */
  plan: z
    .object({
      subscriptionId: z.string(),
      /** Public model names allowed; empty = every model of the key's server option. */
      models: z.array(z.string()),
      windows: z.array(z.object({ window: z.enum(PLAN_WINDOWS), requests: z.number().int().positive().nullable(), usdNano: z.string().regex(/^\d+$/).nullable() })),
    })
    .nullable(),
});
export type CustomerRecord = z.infer<typeof customerRecordSchema>;

/**
 * The records the control plane writes to Redis and every proxy reads. Defined once, here: the
 * control plane writes with these schemas and the proxy parses with them, so they cannot drift.
 */
export const keyRecordSchema = z.object({
  id: z.string(),
  vendorId: z.string(),
  name: z.string(),
  prefix: z.string(),
  serverOption: z.string(),
  /** Revoked is final; disabled is a pause its vendor can lift (contract section 9). */
  status: z.enum(["active", "disabled", "revoked"]),
  /** Epoch milliseconds, or null for a key that never expires. */
  expiresAt: z.number().int().nullable(),
  /** nano-USD as a decimal string (BigInt does not survive JSON), null = unlimited. */
  quotaNano: z.string().regex(/^\d+$/).nullable(),
  rpm: z.number().int().positive().nullable(),
  tpm: z.number().int().positive().nullable(),
  /** Periodic budget: nano-USD per UTC day/week/month, beside the lifetime quota; null = none. */
  budget: z.object({ limitNano: z.string().regex(/^\d+$/), period: z.enum(BUDGET_PERIODS) }).nullable().default(null),
  /**
   * Set on the record of a secret replaced by a rotation: epoch ms after which that secret is
   * refused (the grace period's end). Null on the key's current secret.
   */
  secretExpiresAt: z.number().int().nullable().default(null),
  /** The row's revision: a write carrying an older revision never replaces a newer record. */
  revision: z.number().int().nonnegative().default(0),
  /** The customer the key belongs to; null or absent = none (records written before customers read so). */
  customer: customerRecordSchema.nullable().optional(),
});
export type KeyRecord = z.infer<typeof keyRecordSchema>;

export const upstreamRecordSchema = z.object({
  name: z.string(),
  shape: shapeSchema,
  baseUrl: z.string(),
  /** Name of the env var that holds the upstream secret; each proxy reads its own environment. */
  secretEnv: z.string().nullable(),
  priority: z.number().int(),
  weight: z.number().int(),
  connectTimeoutMs: z.number().int(),
  firstByteTimeoutMs: z.number().int(),
  /** A non-streaming call's whole wait; a snapshot from before it was published reads the default. */
  responseTimeoutMs: z.number().int().default(600_000),
  supportsResponses: z.boolean(),
  /** `anthropic-beta` values this upstream never receives (contract section 11). */
  dropBetas: z.array(z.string()).default(["oauth-2025-04-20"]),
  /** The provider's own fields (azure, bedrock, vertex, a compat profile: contract section 17); null for a plain upstream. */
  dialect: upstreamDialectSchema.nullable().optional(),
});
export type UpstreamRecord = z.infer<typeof upstreamRecordSchema>;

export const modelCapabilitiesSchema = z.object({
  maxOutputTokens: z.number().int().nonnegative(),
  contextWindow: z.number().int().positive(),
  /** Accepts reasoning effort / thinking. */
  reasoning: z.boolean(),
  /** Accepts temperature / top_p / top_k. */
  sampling: z.boolean(),
  /** Takes `role: "system"` inside `messages` (Claude 4.8+). */
  midConversationSystem: z.boolean(),
  /**
   * `thinking_style`: a Gemini-shape target is sent `thinkingLevel` (`level`) or `thinkingBudget`
   * (`budget`). Absent in a snapshot published before it existed: `budget`, what was sent then.
   */
  thinkingStyle: z.enum(["budget", "level"]).optional(),
  /** `can_disable_thinking`: effort `none` may turn thinking off. Absent (an older snapshot): true. */
  canDisableThinking: z.boolean().optional(),
  vision: z.boolean(),
  tools: z.boolean(),
});
export type ModelCapabilities = z.infer<typeof modelCapabilitiesSchema>;

export const modelRecordSchema = z.object({
  name: z.string(),
  displayName: z.string(),
  ownedBy: z.string(),
  /** Epoch seconds, as the model list shows it. */
  created: z.number().int(),
  /** Other names (exact, or `*` patterns) a request may use for this model; billing uses `name`. */
  aliases: z.array(z.string()).default([]),
  /** Request fields removed before any upstream call, listed in `x-gateway-dropped-params`. */
  dropParams: z.array(z.string()).default([]),
  /** The model's place in the gateway file: alias patterns are tried in file order. */
  position: z.number().int().default(0),
  /** Lower priority first; spread by weight within the lowest healthy priority (contract section 11). */
  targets: z.array(z.object({ upstream: z.string(), model: z.string(), weight: z.number().int(), priority: z.number().int().default(0) })),
  /**
   * What the model takes (contract section 15), resolved by the gateway file (its family's defaults
   * where the file leaves one out). `maxOutputTokens` caps every request's output bound (section
   * 14); 0 is a model without text output (an image model). A snapshot published before
   * capabilities existed reads with 4096 output tokens, which every model accepts.
   */
  capabilities: modelCapabilitiesSchema.default({
    maxOutputTokens: 4096,
    contextWindow: 128_000,
    reasoning: false,
    sampling: true,
    midConversationSystem: false,
    vision: true,
    tools: true,
  }),
});
export type ModelRecord = z.infer<typeof modelRecordSchema>;

const scaledPrice = z.string().regex(/^\d+$/);
/**
 * Every price field of `UnitPrices` (@gateway/contracts); the ones added later default to "0", so a
 * snapshot published by an older control plane still reads.
 */
const scaledPrices = {
  inputPrice: scaledPrice,
  outputPrice: scaledPrice,
  cachedInputPrice: scaledPrice,
  cacheWritePrice: scaledPrice.default("0"),
  cacheWrite1hPrice: scaledPrice.default("0"),
  imagePrice: scaledPrice,
  requestPrice: scaledPrice.default("0"),
  webSearchPrice: scaledPrice.default("0"),
};

export const serverOptionRecordSchema = z.object({
  name: z.string(),
  models: z.array(z.string()),
  /**
   * Effective unit prices per model under this option (override, else list price x multiplier),
   * in 1/10000 pico-USD (`scaledUnitPrices` in @gateway/contracts), with the long-context tiers
   * resolved (`scaledPricesToStrings`), for quota reservations.
   */
  prices: z.record(z.string(), z.object({ ...scaledPrices, tiers: z.array(z.object({ aboveInputTokens: z.number().int(), ...scaledPrices })).default([]) })),
  rpm: z.number().int().positive().nullable(),
  tpm: z.number().int().positive().nullable(),
  /** Refuse (400) cross-shape fields the other side cannot take instead of dropping them. */
  strictParams: z.boolean().default(false),
});
export type ServerOptionRecord = z.infer<typeof serverOptionRecordSchema>;

/** Everything a proxy needs to route, published whole so a proxy never sees half an update. */
export const routingSnapshotSchema = z.object({
  version: z.number().int(),
  publishedAt: z.number().int(),
  upstreams: z.record(z.string(), upstreamRecordSchema),
  models: z.record(z.string(), modelRecordSchema),
  serverOptions: z.record(z.string(), serverOptionRecordSchema),
});
export type RoutingSnapshot = z.infer<typeof routingSnapshotSchema>;

/** Messages on the invalidation channel. */
export const storeEventSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("key_changed"), hash: z.string() }),
  z.object({ type: z.literal("snapshot_changed"), version: z.number().int() }),
]);
export type StoreEvent = z.infer<typeof storeEventSchema>;
