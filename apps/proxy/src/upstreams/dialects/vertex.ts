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
 * Claude on Google Vertex AI (`rawPredict` / `streamRawPredict`, the Anthropic shape): the Messages
 * body without `model`, with `anthropic_version` (`stream` stays in the body, unlike Bedrock), the
 * model in the path under the project and region; the stream is Anthropic's own SSE. Auth: an OAuth2
 * access token of the service account whose key file `service_account_file_env` names.
 */
export function vertexTransport(dialect: VertexDialect): DialectTransport {
  const prefix = `/projects/${encodeURIComponent(dialect.project)}/locations/${encodeURIComponent(dialect.region)}/publishers/anthropic/models`;
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
  return {
    async prepare(call: UpstreamCall, stream: boolean): Promise<DialectCall> {
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
      const token = await tokens().get();
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(call.headers)) if (name !== "x-api-key" && name !== "authorization") headers[name] = value;
      headers.authorization = `Bearer ${token}`;
      return { path, headers, body: JSON.stringify(vertexBody) };
    },
    failed(status) {
      // An expired or revoked token: the next request fetches a new one.
      if (status === 401) tokens().invalidate();
    },
  };
}
