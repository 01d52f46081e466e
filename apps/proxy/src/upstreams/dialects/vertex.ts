import type { UpstreamDialect } from "@gateway/contracts";
import type { UpstreamCall } from "../../relay/upstream-client.ts";
import { callBody, callModel, envValue, type DialectCall, type DialectTransport } from "./transport.ts";
import { ServiceAccountTokens } from "./vertex-token.ts";

type VertexDialect = Extract<UpstreamDialect, { kind: "vertex" }>;

/** The version Vertex's Anthropic body names (https://docs.cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude). */
export const VERTEX_ANTHROPIC_VERSION = "vertex-2023-10-16";

/** One token source per key file, for every upstream that names it. */
const tokenSources = new Map<string, ServiceAccountTokens>();

/**
 * Google Vertex AI. Claude (`rawPredict` / `streamRawPredict`, the Anthropic shape): the Messages
 * body without `model`, with `anthropic_version` (`stream` stays in the body, unlike Bedrock), the
 * model in the path under the project and region; the stream is Anthropic's own SSE. Gemini
 * (`publisher: google`, the Gemini shape): `generateContent`, `streamGenerateContent?alt=sse` and
 * `countTokens` on the same path scheme, bodies as the Gemini API's. Auth: an OAuth2 access token of
 * the service account whose key file `service_account_file_env` names.
 */
export function vertexTransport(dialect: VertexDialect): DialectTransport {
  const publisher = dialect.publisher ?? "anthropic";
  const prefix = `/projects/${encodeURIComponent(dialect.project)}/locations/${encodeURIComponent(dialect.region)}/publishers/${publisher}/models`;
  const tokens = (): ServiceAccountTokens => {
    const file = envValue(dialect.serviceAccountFileEnv);
    if (file === null) throw new Error(`the Vertex service-account key file is not set (${dialect.serviceAccountFileEnv})`);
    let source = tokenSources.get(file);
    if (source === undefined) {
      source = new ServiceAccountTokens(file);
      tokenSources.set(file, source);
    }
    return source;
  };
  const authorized = async (headers: Record<string, string>): Promise<Record<string, string>> => {
    const token = await tokens().get();
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) if (name !== "x-api-key" && name !== "x-goog-api-key" && name !== "authorization") out[name] = value;
    out.authorization = `Bearer ${token}`;
    return out;
  };
  return {
    async prepare(call: UpstreamCall, stream: boolean): Promise<DialectCall> {
      if (publisher === "google") {
        // Gemini on Vertex: the Gemini API's body and methods under the project's publisher path.
        const method = /^\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens)(\?.*)?$/.exec(call.path);
        if (!method) throw new Error(`Vertex has no ${call.path.replace(/\?.*$/, "")} for Gemini models`);
        return { path: `${prefix}/${method[1]}:${method[2]}${method[3] ?? ""}`, headers: await authorized(call.headers), body: call.body };
      }
      const body = callBody(call);
      const model = callModel(body);
      let path: string;
      let vertexBody: Record<string, unknown>;
      if (call.path === "/v1/messages") {
        const { model: _model, ...rest } = body;
        path = `${prefix}/${encodeURIComponent(model)}:${stream ? "streamRawPredict" : "rawPredict"}`;
        vertexBody = { ...rest, anthropic_version: VERTEX_ANTHROPIC_VERSION };
      } else if (call.path === "/v1/messages/count_tokens") {
        // Vertex counts on its own model name; the body keeps `model`.
        path = `${prefix}/count-tokens:rawPredict`;
        vertexBody = { ...body, anthropic_version: VERTEX_ANTHROPIC_VERSION };
      } else {
        throw new Error(`Vertex has no ${call.path} for Anthropic models`);
      }
      return { path, headers: await authorized(call.headers), body: JSON.stringify(vertexBody) };
    },
    failed(status) {
      // An expired or revoked token: the next request fetches a new one.
      if (status === 401) tokens().invalidate();
    },
  };
}
