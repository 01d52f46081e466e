import { z } from "zod";
import { parse as parseYaml } from "yaml";
import { ConfigError } from "./env.ts";

/**
 * The declarative gateway file (contract section 7): upstreams, models with prices and ordered
 * targets, server options, vendors. Secrets never live here, only the names of env vars.
 */
const name = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:/-]*$/, "letters, digits and . _ : / - only");
/** The database keeps these in INTEGER columns: a larger value must fail here, naming its path, not at apply. */
const INT32_MAX = 2_147_483_647;
/** Betas that only make sense with the client's own Anthropic credentials (Claude Code's OAuth sign-in). */
export const DEFAULT_DROP_BETAS = ["oauth-2025-04-20"] as const;
const positiveInt32 = () => z.number().int().positive().max(INT32_MAX);
/**
 * Prices are decimal USD strings, bounded so the pico-USD value the database keeps (BIGINT) can
 * neither overflow nor lose a digit: per million tokens at most 6 decimals (1 pico per token), per
 * unit (image, request, web search) at most 12; at most 6 whole digits either way.
 */
const tokenPrice = z.string().regex(/^\d{1,6}(\.\d{1,6})?$/, "USD per million tokens as a string, e.g. \"0.15\" (at most 6 whole digits and 6 decimals)");
const unitPrice = z.string().regex(/^\d{1,6}(\.\d{1,12})?$/, "USD per unit as a string, e.g. \"0.04\" (at most 6 whole digits and 12 decimals)");
/** A multiplier is kept in basis points: at most 4 decimals, so none is silently cut. */
const multiplier = z.string().regex(/^\d{1,3}(\.\d{1,4})?$/, "a decimal multiplier as a string, e.g. \"1.25\" (at most 3 whole digits and 4 decimals)");

/** Every price field (contract section 12); each one optional in a tier or an override. */
const priceFields = {
  /** USD per million input tokens (uncached). */
  input: tokenPrice.optional(),
  /** USD per million output tokens (reasoning included). */
  output: tokenPrice.optional(),
  /** USD per million cache-read tokens; defaults to the input price. */
  cached_input: tokenPrice.optional(),
  /** USD per million 5-minute cache-write tokens; defaults to 1.25 x input. */
  cache_write: tokenPrice.optional(),
  /** USD per million 1-hour cache-write tokens; defaults to 2 x input. */
  cache_write_1h: tokenPrice.optional(),
  /** USD per generated image. */
  image: unitPrice.optional(),
  /** USD per request (flat). */
  request: unitPrice.optional(),
  /** USD per server-side web search. */
  web_search: unitPrice.optional(),
};

/**
 * Long-context tiers: a request whose total input is above `above_input_tokens` pays the tier's
 * prices for all its tokens (a field left out is the base price); the highest threshold crossed
 * wins, so thresholds must ascend strictly.
 */
const tiers = z
  .array(z.strictObject({ above_input_tokens: z.number().int().nonnegative().max(INT32_MAX), ...priceFields }))
  .superRefine((list, ctx) => {
    list.forEach((tier, index) => {
      if (index > 0 && tier.above_input_tokens <= list[index - 1]!.above_input_tokens) {
        ctx.addIssue({ code: "custom", path: [index, "above_input_tokens"], message: "tiers must be sorted by strictly ascending above_input_tokens" });
      }
    });
  });
export type PriceTierFields = z.infer<typeof tiers>[number];

const priceSet = z.strictObject({
  ...priceFields,
  input: tokenPrice.default("0"),
  output: tokenPrice.default("0"),
  image: unitPrice.default("0"),
  request: unitPrice.default("0"),
  web_search: unitPrice.default("0"),
  tiers: tiers.default([]),
});

/** A server option's own prices: only the fields given override the model's (no defaults here); its tiers replace the model's. */
const priceOverrides = z.strictObject({ ...priceFields, tiers: tiers.optional() });

const upstream = z.strictObject({
  name,
  shape: z.enum(["openai", "anthropic"]),
  base_url: z.url(),
  secret_env: z.string().regex(/^[A-Z_][A-Z0-9_]*$/, "an environment variable name").nullable().default(null),
  priority: z.number().int().min(-INT32_MAX).max(INT32_MAX).default(0),
  weight: positiveInt32().default(1),
  timeouts: z
    .strictObject({
      connect_ms: positiveInt32().default(2000),
      first_byte_ms: positiveInt32().default(60000),
      /** A non-streaming answer's whole wait (contract section 14): the SDKs' own 10 minutes by default. */
      response_ms: positiveInt32().default(600000),
    })
    .default({ connect_ms: 2000, first_byte_ms: 60000, response_ms: 600000 }),
  capabilities: z.strictObject({ responses: z.boolean().default(true) }).default({ responses: true }),
  /** `anthropic-beta` values never forwarded to this upstream (contract section 11): OAuth betas by default. */
  drop_betas: z.array(z.string().min(1)).default([...DEFAULT_DROP_BETAS]),
});

const model = z.strictObject({
  name,
  display_name: z.string().optional(),
  owned_by: z.string().default("gateway"),
  prices: priceSet,
  /**
   * Other names for this model: exact, or with `*` wildcards (`claude-sonnet-4-5-2025*`). Exact
   * names and exact aliases win over patterns; among patterns the first in file order wins.
   */
  aliases: z.array(z.string().max(200).regex(/^\S+$/, "a model name, or a pattern with * wildcards (no spaces)")).default([]),
  /** Request fields removed before any upstream call (models that reject them), listed in `x-gateway-dropped-params`. */
  drop_params: z.array(z.string().regex(/^[a-z_][a-z0-9_]*$/, "a request field name")).default([]),
  /** Traffic is spread by weight over the healthy targets of the lowest priority; both default to the upstream's. */
  targets: z
    .array(
      z.strictObject({
        upstream: name,
        model: z.string().min(1),
        weight: positiveInt32().optional(),
        priority: z.number().int().min(-INT32_MAX).max(INT32_MAX).optional(),
      }),
    )
    .min(1),
});

const serverOption = z.strictObject({
  name,
  description: z.string().default(""),
  models: z.array(name).min(1),
  price_multiplier: multiplier.default("1"),
  prices: z.record(name, priceOverrides).default({}),
  rate_limits: z
    .strictObject({ rpm: positiveInt32().nullable().default(null), tpm: positiveInt32().nullable().default(null) })
    .default({ rpm: null, tpm: null }),
  /** Refuse (400) a cross-shape field the other side cannot take instead of dropping it. */
  strict_params: z.boolean().default(false),
});

const vendor = z.strictObject({ name, server_options: z.array(name).default([]) });

export const gatewayFileSchema = z
  .strictObject({
    upstreams: z.array(upstream).default([]),
    models: z.array(model).default([]),
    server_options: z.array(serverOption).default([]),
    vendors: z.array(vendor).default([]),
  })
  .superRefine((file, ctx) => {
    const unique = (list: { name: string }[], path: string) => {
      const seen = new Set<string>();
      list.forEach((item, index) => {
        if (seen.has(item.name)) ctx.addIssue({ code: "custom", path: [path, index, "name"], message: `duplicate name "${item.name}"` });
        seen.add(item.name);
      });
      return seen;
    };
    const upstreams = unique(file.upstreams, "upstreams");
    const models = unique(file.models, "models");
    const options = unique(file.server_options, "server_options");
    unique(file.vendors, "vendors");
    // A name a request may use belongs to one model only: an alias may not be another model's
    // name or alias (a pattern written twice would never match for the second model). Patterns
    // may overlap: the first in file order wins.
    const claimed = new Map<string, string>(file.models.map((m) => [m.name, `the model "${m.name}"`]));
    file.models.forEach((m, i) =>
      m.aliases.forEach((alias, j) => {
        const owner = claimed.get(alias);
        if (owner !== undefined && owner !== `the model "${m.name}"` && owner !== `an alias of the model "${m.name}"`) {
          ctx.addIssue({ code: "custom", path: ["models", i, "aliases", j], message: `alias "${alias}" of the model "${m.name}" collides with ${owner}` });
        } else if (owner === undefined) claimed.set(alias, `an alias of the model "${m.name}"`);
      }),
    );
    file.models.forEach((m, i) =>
      m.targets.forEach((t, j) => {
        if (!upstreams.has(t.upstream)) ctx.addIssue({ code: "custom", path: ["models", i, "targets", j, "upstream"], message: `unknown upstream "${t.upstream}"` });
      }),
    );
    file.server_options.forEach((o, i) => {
      o.models.forEach((m, j) => {
        if (!models.has(m)) ctx.addIssue({ code: "custom", path: ["server_options", i, "models", j], message: `unknown model "${m}"` });
      });
      for (const m of Object.keys(o.prices)) {
        if (!o.models.includes(m)) ctx.addIssue({ code: "custom", path: ["server_options", i, "prices", m], message: `price for a model not in this server option` });
      }
    });
    file.vendors.forEach((v, i) =>
      v.server_options.forEach((o, j) => {
        if (!options.has(o)) ctx.addIssue({ code: "custom", path: ["vendors", i, "server_options", j], message: `unknown server option "${o}"` });
      }),
    );
  });

export type GatewayFile = z.infer<typeof gatewayFileSchema>;

function formatPath(path: PropertyKey[]): string {
  return path.reduce<string>((out, part) => (typeof part === "number" ? `${out}[${part}]` : out ? `${out}.${String(part)}` : String(part)), "");
}

/**
 * `${NAME}` and `${NAME:-fallback}` in the file are replaced from the environment, so one file
 * serves several deployments (base URLs differ; secrets still never belong in the file).
 */
export function expandEnv(text: string, env: Record<string, string | undefined> = process.env): string {
  return text.replace(/\$\{([A-Z_][A-Z0-9_]*)(?::-([^}]*))?\}/g, (_match, name: string, fallback: string | undefined) => {
    const value = env[name];
    if (value !== undefined && value !== "") return value;
    if (fallback !== undefined) return fallback;
    throw new ConfigError(`the gateway file uses \${${name}} but ${name} is not set`);
  });
}

/** Parses YAML text; errors name the file and the path inside it (`models[0].targets[1].upstream`). */
export function parseGatewayFile(text: string, fileName = "gateway.yaml", env: Record<string, string | undefined> = process.env): GatewayFile {
  let raw: unknown;
  try {
    raw = parseYaml(expandEnv(text, env)) ?? {};
  } catch (error) {
    throw new ConfigError(`${fileName}: not valid YAML: ${(error as Error).message}`);
  }
  const result = gatewayFileSchema.safeParse(raw);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => `  ${formatPath(issue.path) || "(root)"}: ${issue.message}`);
    throw new ConfigError(`${fileName}: invalid gateway configuration\n${lines.join("\n")}`);
  }
  return result.data;
}
