import { z } from "zod";
import { parse as parseYaml } from "yaml";
import { CLIENT_SHAPES, COMPAT_PROFILES, defaultBaseUrl, KIND_SHAPES, UPSTREAM_KINDS, type Shape, type UpstreamDialect, type UpstreamKind } from "@gateway/contracts";
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

const envName = z.string().regex(/^[A-Z_][A-Z0-9_]*$/, "an environment variable name");

/** Provider fields (contract section 17), each allowed only on its kind (`KIND_FIELDS`). */
const kindFields = {
  /** azure: the deployment URL form's `api-version`; left out, the v1 path. */
  api_version: z.string().regex(/^[A-Za-z0-9.-]+$/, "an api-version such as 2024-10-21").optional(),
  /** azure: `api-key` (a resource key, the default) or `bearer` (an Entra ID token), from `secret_env`. */
  auth: z.enum(["api-key", "bearer"]).optional(),
  /** bedrock and vertex: the provider's region (vertex also `global`, `us`, `eu`). */
  region: z.string().regex(/^[a-z0-9-]+$/, "a region such as us-east-1").optional(),
  aws_access_key_id_env: envName.optional(),
  aws_secret_access_key_env: envName.optional(),
  aws_session_token_env: envName.optional(),
  /** vertex: the Google Cloud project id. */
  project: z.string().regex(/^[a-z0-9-]+$/, "a project id").optional(),
  /** vertex: the env var naming the service-account key file (its `token_uri` issues the access tokens). */
  service_account_file_env: envName.optional(),
  /** vertex: `anthropic` (Claude, the default) or `google` (Gemini, the Gemini shape). */
  publisher: z.enum(["anthropic", "google"]).optional(),
  /** bedrock: `invoke` (InvokeModel with Anthropic's body: Claude; the default) or `converse` (Converse / ConverseStream: any model, Nova, Llama, Mistral, Claude). */
  api: z.enum(["invoke", "converse"]).optional(),
  /** openai / anthropic: an OpenAI- or Anthropic-compatible vendor's profile (what it does not take). */
  compat: z.enum(COMPAT_PROFILES).optional(),
};
type KindField = keyof typeof kindFields;
type UpstreamShapeName = (typeof CLIENT_SHAPES)[number] | UpstreamKind;

/** A Bedrock model id (or inference profile, region-prefixed) of a provider other than Anthropic: `amazon.nova-pro-v1:0`, `us.meta.llama3-3-70b-instruct-v1:0`. */
const NON_ANTHROPIC_BEDROCK_MODEL = /^(?:(?:us|eu|apac|us-gov|global)\.)?(?:amazon|meta|mistral|cohere|ai21|deepseek|qwen|openai|writer|twelvelabs|stability|luma)\./;

/** Which provider fields each upstream shape takes, and which of them it requires; a shape not listed takes none. */
const KIND_FIELDS: { readonly [Name in UpstreamShapeName]?: { allowed: readonly KindField[]; required: readonly KindField[] } } = {
  openai: { allowed: ["compat"], required: [] },
  anthropic: { allowed: ["compat"], required: [] },
  azure: { allowed: ["api_version", "auth"], required: [] },
  bedrock: { allowed: ["region", "aws_access_key_id_env", "aws_secret_access_key_env", "aws_session_token_env", "api"], required: ["region"] },
  vertex: { allowed: ["region", "project", "service_account_file_env", "publisher"], required: ["region", "project", "service_account_file_env"] },
};

const upstreamFields = z.strictObject({
  name,
  /** The shape an upstream speaks, or a provider kind speaking one of them over its own URLs and auth. */
  shape: z.enum([...CLIENT_SHAPES, ...UPSTREAM_KINDS]),
  /** Required but for bedrock and vertex, whose endpoint follows from their region (a private endpoint or a test overrides it). */
  base_url: z.url().optional(),
  secret_env: envName.nullable().default(null),
  ...kindFields,
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

/** The provider fields as the dialect record keeps them; null for a plain upstream. */
function dialectOf(u: z.infer<typeof upstreamFields>): UpstreamDialect | null {
  switch (u.shape) {
    case "azure":
      return { kind: "azure", apiVersion: u.api_version ?? null, auth: u.auth ?? "api-key" };
    case "bedrock":
      return { kind: "bedrock", region: u.region!, accessKeyIdEnv: u.aws_access_key_id_env ?? null, secretAccessKeyEnv: u.aws_secret_access_key_env ?? null, sessionTokenEnv: u.aws_session_token_env ?? null, ...(u.api === "converse" ? { api: "converse" as const } : {}) };
    case "vertex":
      return { kind: "vertex", project: u.project!, region: u.region!, serviceAccountFileEnv: u.service_account_file_env!, publisher: u.publisher ?? "anthropic" };
    default:
      return u.compat === undefined ? null : { kind: "compat", profile: u.compat };
  }
}

/**
 * An upstream as the rest of the gateway reads it: `shape` is the shape its bodies are in (a kind's
 * `KIND_SHAPES`), `dialect` the provider's own fields, `base_url` the provider's endpoint when the
 * file leaves it out.
 */
const upstream = upstreamFields
  .superRefine((u, ctx) => {
    const fields = KIND_FIELDS[u.shape] ?? { allowed: [], required: [] };
    for (const field of Object.keys(kindFields) as KindField[]) {
      if (u[field] !== undefined && !fields.allowed.includes(field)) ctx.addIssue({ code: "custom", path: [field], message: `not a field of a ${u.shape} upstream` });
    }
    for (const field of fields.required) if (u[field] === undefined) ctx.addIssue({ code: "custom", path: [field], message: `required for a ${u.shape} upstream` });
    // Bedrock's keys come as a pair, or not at all (then the AWS SDKs' default chain: a role).
    if (u.shape === "bedrock" && (u.aws_access_key_id_env === undefined) !== (u.aws_secret_access_key_env === undefined)) {
      ctx.addIssue({ code: "custom", path: [u.aws_access_key_id_env === undefined ? "aws_access_key_id_env" : "aws_secret_access_key_env"], message: "aws_access_key_id_env and aws_secret_access_key_env go together (leave both out for the default credential chain)" });
    }
    if (u.shape === "bedrock" && u.aws_session_token_env !== undefined && u.aws_access_key_id_env === undefined) {
      ctx.addIssue({ code: "custom", path: ["aws_session_token_env"], message: "a session token goes with aws_access_key_id_env and aws_secret_access_key_env" });
    }
    if (u.base_url === undefined && u.shape !== "bedrock" && u.shape !== "vertex") ctx.addIssue({ code: "custom", path: ["base_url"], message: `required for a ${u.shape} upstream` });
  })
  .transform((u, ctx) => {
    const dialect = dialectOf(u);
    const base = u.base_url ?? (dialect === null ? null : defaultBaseUrl(dialect));
    if (base === null) {
      ctx.addIssue({ code: "custom", path: ["base_url"], message: "required" });
      return z.NEVER;
    }
    const { shape: named, base_url: _base, api_version: _1, auth: _2, region: _3, aws_access_key_id_env: _4, aws_secret_access_key_env: _5, aws_session_token_env: _6, project: _7, service_account_file_env: _8, compat: _9, publisher, api, ...rest } = u;
    const shape: Shape = named === "vertex" && publisher === "google" ? "gemini" : named === "bedrock" && api === "converse" ? "bedrock-converse" : named === "azure" || named === "bedrock" || named === "vertex" ? KIND_SHAPES[named] : named;
    return { ...rest, shape, base_url: base, dialect };
  });

/**
 * What a model takes (contract section 15), each optional: what the file leaves out comes from the
 * model's provider family (`FAMILY_CAPABILITIES`, by the shape of its first target's upstream).
 */
const capabilities = z.strictObject({
  /** The most output tokens one request may ask for: caps every request's output bound (section 14). 0: no text output (an image model). */
  max_output_tokens: z.number().int().nonnegative().max(INT32_MAX).optional(),
  /** Input plus output tokens the model reads at most. */
  context_window: positiveInt32().optional(),
  /** Accepts reasoning effort / thinking. */
  reasoning: z.boolean().optional(),
  /** Accepts temperature / top_p / top_k. */
  sampling: z.boolean().optional(),
  /** Takes `role: "system"` inside `messages` (Claude 4.8+; OpenAI models always). */
  mid_conversation_system: z.boolean().optional(),
  /**
   * How the model is told how much to think, as Google names the two fields of `thinkingConfig`:
   * `level` (`thinkingLevel` LOW/HIGH..., Gemini 3) or `budget` (`thinkingBudget` in tokens, Gemini
   * 2.5). A Gemini-shape target is sent only that one field (Google refuses the other, and both at
   * once); the other families' writers do not read it.
   */
  thinking_style: z.enum(["budget", "level"]).optional(),
  /**
   * Thinking can be turned off: `thinkingBudget: 0` (Gemini 2.5 Flash) or `thinkingLevel: MINIMAL`
   * (Gemini 3 Flash). False where Google refuses both (Gemini 2.5 Pro, Gemini 3 Pro): reasoning
   * effort `none` then asks for the least thinking the model takes (budget 128, level LOW).
   */
  can_disable_thinking: z.boolean().optional(),
  /** Reads images. */
  vision: z.boolean().optional(),
  /** Calls tools. */
  tools: z.boolean().optional(),
});
export type ModelCapabilityFields = Required<z.infer<typeof capabilities>>;

/**
 * Capabilities a model has when the gateway file does not say, per provider family (the shape of
 * the model's first target's upstream). `max_output_tokens` is 4096 in both: the largest value
 * every model of the family accepts (GPT-3.5/GPT-4 Turbo and the Claude 3 models stop there), so a
 * default is never refused upstream and never reserves more than such a model can produce; set the
 * real value for a newer model (gpt-4o-mini 16384, Claude Sonnet/Haiku 4.5 64000). The rest
 * describe the family's current models: OpenAI takes system messages anywhere but reasoning effort
 * only on its reasoning models; Claude takes thinking, and a mid-conversation system message only
 * from 4.8 on. Gemini defaults to its current models, Gemini 3: `thinking_style: level` and
 * `can_disable_thinking: false` (Gemini 3 Pro takes only LOW and HIGH); a Gemini 2.5 model sets
 * `thinking_style: budget` (and Gemini 2.5 Flash `can_disable_thinking: true`). The other families
 * carry how they speak (OpenAI: effort levels, `none`; Anthropic and Converse: token budgets,
 * `disabled`), which only Gemini-shape targets read.
 */
export const FAMILY_CAPABILITIES: Readonly<Record<Shape, Readonly<ModelCapabilityFields>>> = Object.freeze({
  openai: Object.freeze({ max_output_tokens: 4096, context_window: 128_000, reasoning: false, sampling: true, mid_conversation_system: true, thinking_style: "level", can_disable_thinking: true, vision: true, tools: true }),
  anthropic: Object.freeze({ max_output_tokens: 4096, context_window: 200_000, reasoning: true, sampling: true, mid_conversation_system: false, thinking_style: "budget", can_disable_thinking: true, vision: true, tools: true }),
  // Gemini 2.5 and 3 (AI Studio): thinking, sampling, tools and images; no system turn mid-conversation.
  gemini: Object.freeze({ max_output_tokens: 8192, context_window: 1_048_576, reasoning: true, sampling: true, mid_conversation_system: false, thinking_style: "level", can_disable_thinking: false, vision: true, tools: true }),
  // Any model on Bedrock Converse (Nova, Llama, Mistral...): what Converse itself takes; reasoning is model-specific, off.
  "bedrock-converse": Object.freeze({ max_output_tokens: 4096, context_window: 128_000, reasoning: false, sampling: true, mid_conversation_system: false, thinking_style: "budget", can_disable_thinking: true, vision: true, tools: true }),
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
  /** What the model takes; defaults per provider family (`FAMILY_CAPABILITIES`). */
  capabilities: capabilities.default({}),
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
    // InvokeModel takes Anthropic's body: another provider's Bedrock model is served through Converse.
    const invokeOnly = new Set(file.upstreams.filter((u) => u.dialect?.kind === "bedrock" && u.dialect.api !== "converse").map((u) => u.name));
    file.models.forEach((m, i) =>
      m.targets.forEach((t, j) => {
        if (!upstreams.has(t.upstream)) ctx.addIssue({ code: "custom", path: ["models", i, "targets", j, "upstream"], message: `unknown upstream "${t.upstream}"` });
        else if (invokeOnly.has(t.upstream) && NON_ANTHROPIC_BEDROCK_MODEL.test(t.model)) {
          ctx.addIssue({ code: "custom", path: ["models", i, "targets", j, "model"], message: `"${t.model}" is not a Claude model: the upstream "${t.upstream}" sends InvokeModel with Anthropic's body; give it api: converse` });
        }
      }),
    );
    file.models.forEach((m, i) => {
      const { max_output_tokens: output, context_window: context } = m.capabilities;
      if (output !== undefined && context !== undefined && output > context) {
        ctx.addIssue({ code: "custom", path: ["models", i, "capabilities", "max_output_tokens"], message: `${output} is above the model's context_window (${context})` });
      }
    });
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
  })
  // Every model's capabilities in full: the file's own, else its family's.
  .transform((file) => {
    const shapes = new Map(file.upstreams.map((u) => [u.name, u.shape]));
    return {
      ...file,
      models: file.models.map((m) => {
        const family = FAMILY_CAPABILITIES[shapes.get(m.targets[0]!.upstream) ?? "openai"];
        const given = Object.fromEntries(Object.entries(m.capabilities).filter(([, value]) => value !== undefined));
        return { ...m, capabilities: { ...family, ...given } as ModelCapabilityFields };
      }),
    };
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
