import type { UpstreamDialect } from "@gateway/contracts";
import type { UpstreamCall } from "../../relay/upstream-client.ts";
import { callBody, callModel, type DialectCall, type DialectTransport } from "./transport.ts";

type AzureDialect = Extract<UpstreamDialect, { kind: "azure" }>;

/** The OpenAI paths Azure serves per deployment (`/openai/deployments/{deployment}/…`); the rest are resource-wide. */
const DEPLOYMENT_PATHS = new Set(["/chat/completions", "/completions", "/embeddings", "/images/generations", "/audio/transcriptions", "/audio/speech"]);

/**
 * Azure OpenAI (https://learn.microsoft.com/azure/ai-foundry/openai/reference): the OpenAI shape on
 * the resource's endpoint (`base_url`, e.g. `https://{resource}.openai.azure.com`). With an
 * `api_version`, the deployment form `/openai/deployments/{deployment}/chat/completions?api-version=…`
 * (the target's `model` is the deployment); without, the v1 path `/openai/v1/chat/completions`,
 * where `model` names the deployment. Auth: the resource key as `api-key`, or an Entra ID token as
 * `Authorization: Bearer`, both from `secret_env`.
 */
export function azureTransport(dialect: AzureDialect): DialectTransport {
  const version = dialect.apiVersion === null ? "" : `?api-version=${encodeURIComponent(dialect.apiVersion)}`;
  return {
    prepare(call: UpstreamCall): DialectCall {
      let path: string;
      if (dialect.apiVersion === null) path = `/openai/v1${call.path}`;
      else if (DEPLOYMENT_PATHS.has(call.path)) path = `/openai/deployments/${encodeURIComponent(callModel(callBody(call)))}${call.path}${version}`;
      else path = `/openai${call.path}${version}`;
      const headers = { ...call.headers };
      if (dialect.auth === "api-key") {
        // The OpenAI adapter put the secret in `authorization`: Azure's key goes in its own header.
        const bearer = headers.authorization;
        delete headers.authorization;
        if (bearer !== undefined) headers["api-key"] = bearer.replace(/^Bearer /, "");
      }
      return { path, headers, body: call.body };
    },
  };
}
