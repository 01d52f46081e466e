import { z } from "zod";
import type { Shape } from "./shapes.ts";

/**
 * The providers people buy from (contract section 17): upstream kinds that speak one of the shapes
 * over their own URLs, auth and framing. In the gateway file they are values of an upstream's
 * `shape`; everywhere after it, the upstream keeps the shape its bodies are in (`KIND_SHAPES`) and
 * a `dialect` record with the provider's own fields, which only the proxy's transport reads.
 */
export const UPSTREAM_KINDS = ["azure", "bedrock", "vertex"] as const;
export type UpstreamKind = (typeof UPSTREAM_KINDS)[number];

/** The shape each kind's bodies are in: Azure OpenAI speaks OpenAI; Claude on Bedrock and Vertex speaks Anthropic Messages (Gemini on Vertex, `publisher: google`, speaks Gemini). */
export const KIND_SHAPES: Readonly<Record<UpstreamKind, Shape>> = Object.freeze({ azure: "openai", bedrock: "anthropic", vertex: "anthropic" });

/** OpenAI- and Anthropic-compatible vendors with known deviations (`compat` on an openai or anthropic upstream). */
export const COMPAT_PROFILES = ["deepseek", "groq", "mistral", "xai", "openrouter", "vllm", "ollama"] as const;
export type CompatProfile = (typeof COMPAT_PROFILES)[number];

const envName = z.string().regex(/^[A-Z_][A-Z0-9_]*$/, "an environment variable name");

/** An upstream's provider fields as Postgres and the routing snapshot keep them (names of env vars, never secrets). */
export const upstreamDialectSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("azure"),
    /** `api-version` of the deployment URL form; null: the v1 path (`/openai/v1/…`). */
    apiVersion: z.string().nullable(),
    /** `api-key` header (a resource key) or `Authorization: Bearer` (an Entra ID token), from `secret_env`. */
    auth: z.enum(["api-key", "bearer"]),
  }),
  z.object({
    kind: z.literal("bedrock"),
    region: z.string(),
    /** Null (both): the AWS SDKs' default chain (environment, web identity / assumed role, container or instance role). */
    accessKeyIdEnv: envName.nullable(),
    secretAccessKeyEnv: envName.nullable(),
    sessionTokenEnv: envName.nullable(),
    /** InvokeModel with Anthropic's body (Claude, the Anthropic shape) or Converse / ConverseStream (any model, the `bedrock-converse` shape). */
    /** Absent: `invoke`. */
    api: z.enum(["invoke", "converse"]).optional(),
  }),
  z.object({
    kind: z.literal("vertex"),
    project: z.string(),
    region: z.string(),
    serviceAccountFileEnv: envName,
    /** Whose models: Anthropic's (rawPredict, the Anthropic shape) or Google's Gemini (generateContent, the Gemini shape). */
    publisher: z.enum(["anthropic", "google"]).default("anthropic"),
  }),
  z.object({ kind: z.literal("compat"), profile: z.enum(COMPAT_PROFILES) }),
]);
export type UpstreamDialect = z.infer<typeof upstreamDialectSchema>;

/** The stored column (`{}` = no dialect: a plain OpenAI or Anthropic upstream) as the snapshot carries it. */
export function dialectFromColumn(value: unknown): UpstreamDialect | null {
  if (value === null || typeof value !== "object" || Object.keys(value).length === 0) return null;
  return upstreamDialectSchema.parse(value);
}

/** The provider's own endpoint for a kind, when the gateway file gives no `base_url`. */
export function defaultBaseUrl(dialect: UpstreamDialect): string | null {
  switch (dialect.kind) {
    case "bedrock":
      return `https://bedrock-runtime.${dialect.region}.amazonaws.com`;
    case "vertex":
      // As the vertex SDK builds it: global and the us/eu multi-regions have their own hosts.
      if (dialect.region === "global") return "https://aiplatform.googleapis.com/v1";
      if (dialect.region === "us" || dialect.region === "eu") return `https://aiplatform.${dialect.region}.rep.googleapis.com/v1`;
      return `https://${dialect.region}-aiplatform.googleapis.com/v1`;
    case "azure":
    case "compat":
      return null;
    default: {
      const never: never = dialect;
      return never;
    }
  }
}
