import { Sha256 } from "@aws-crypto/sha256-js";
import { SignatureV4 } from "@smithy/signature-v4";
import { defaultProvider } from "@aws-sdk/credential-provider-node";
import type { UpstreamDialect } from "@gateway/contracts";
import type { BodySink, UpstreamCall } from "../../relay/upstream-client.ts";
import { BedrockEventStream } from "./bedrock-event-stream.ts";
import { anthropicErrorBody, callBody, callModel, envValue, type DialectCall, type DialectTransport } from "./transport.ts";

type BedrockDialect = Extract<UpstreamDialect, { kind: "bedrock" }>;

/** The version Bedrock's Messages body names (https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages.html). */
export const BEDROCK_ANTHROPIC_VERSION = "bedrock-2023-05-31";

/** Bedrock's error type (from `x-amzn-ErrorType` or the body) -> Anthropic's, for the envelope a client may read. */
function errorType(status: number): string {
  if (status === 429) return "rate_limit_error";
  if (status === 401 || status === 403) return "authentication_error";
  if (status === 404) return "not_found_error";
  if (status === 400) return "invalid_request_error";
  return status === 503 ? "overloaded_error" : "api_error";
}

/**
 * Claude on AWS Bedrock (InvokeModel / InvokeModelWithResponseStream, the Anthropic shape): the
 * Messages body without `model` and `stream`, with `anthropic_version` and the betas as
 * `anthropic_beta`; the model id (or ARN) in the path, percent-encoded as the AWS SDK sends it; the
 * call signed with SigV4 (service `bedrock`) by the AWS SDKs' own signer, with the credentials the
 * `aws_*_env` variables name, else the SDKs' default chain (a role); the stream is the binary event
 * stream (`BedrockEventStream`).
 */
export function bedrockTransport(dialect: BedrockDialect, baseUrl: string): DialectTransport {
  const base = new URL(baseUrl);
  const basePath = base.pathname.replace(/\/+$/, "");
  let signer: SignatureV4 | null = null;
  let signedWith = "";
  const signerFor = (): SignatureV4 => {
    if (dialect.accessKeyIdEnv === null || dialect.secretAccessKeyEnv === null) {
      // No keys named: the AWS SDKs' default chain (environment, web identity and assumed roles,
      // container and instance roles), which caches its credentials and renews them before they expire.
      signer ??= new SignatureV4({ service: "bedrock", region: dialect.region, credentials: defaultProvider(), sha256: Sha256 });
      return signer;
    }
    const accessKeyId = envValue(dialect.accessKeyIdEnv);
    const secretAccessKey = envValue(dialect.secretAccessKeyEnv);
    // Named, never shown: the variable is the operator's to set.
    if (accessKeyId === null || secretAccessKey === null) throw new Error(`the Bedrock credentials are not set (${dialect.accessKeyIdEnv}, ${dialect.secretAccessKeyEnv})`);
    const sessionToken = dialect.sessionTokenEnv === null ? undefined : (envValue(dialect.sessionTokenEnv) ?? undefined);
    const id = `${accessKeyId}\n${secretAccessKey}\n${sessionToken ?? ""}`;
    if (signer === null || signedWith !== id) {
      signer = new SignatureV4({ service: "bedrock", region: dialect.region, credentials: { accessKeyId, secretAccessKey, sessionToken }, sha256: Sha256 });
      signedWith = id;
    }
    return signer;
  };

  /** The call signed for its path: the client's other headers kept (request id, trace context), its auth and shape headers not. */
  const signedCall = async (call: UpstreamCall, path: string, body: string, stream: boolean, invoke: boolean): Promise<DialectCall> => {
    const signedHeaders: Record<string, string> = { host: base.host, "content-type": "application/json", accept: stream ? "application/vnd.amazon.eventstream" : "application/json" };
    if (stream && invoke) signedHeaders["x-amzn-bedrock-accept"] = "application/json";
    const signed = await signerFor().sign({ method: "POST", protocol: base.protocol, hostname: base.hostname, port: base.port === "" ? undefined : Number(base.port), path: basePath + path, query: {}, headers: signedHeaders, body });
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(call.headers)) if (!/^(x-api-key|anthropic-version|anthropic-beta|authorization|content-type|accept)$/i.test(name)) headers[name] = value;
    Object.assign(headers, signed.headers);
    return { path, headers, body };
  };

  /**
   * Converse / ConverseStream (any model): the shape's writer made the body and the path
   * (`/model/{modelId}/converse`, `shapes/bedrock-converse/wire.ts`); only the signature is added.
   */
  const converseCall = (call: UpstreamCall, stream: boolean): Promise<DialectCall> => {
    if (!/^\/model\/[^/]+\/converse(-stream)?$/.test(call.path)) throw new Error(`Bedrock Converse has no ${call.path}`);
    const body = typeof call.body === "string" ? call.body : call.body.toString("utf8");
    return signedCall(call, call.path, body, stream, false);
  };

  return {
    async prepare(call: UpstreamCall, stream: boolean): Promise<DialectCall> {
      if (dialect.api === "converse") return converseCall(call, stream);
      const body = callBody(call);
      const model = callModel(body);
      const operation = call.path === "/v1/messages" ? (stream ? "invoke-with-response-stream" : "invoke") : call.path === "/v1/messages/count_tokens" ? "count-tokens" : null;
      if (operation === null) throw new Error(`Bedrock has no ${call.path} for Anthropic models`);
      const { model: _model, stream: _stream, ...rest } = body;
      const betas = call.headers["anthropic-beta"];
      const invokeBody = JSON.stringify({
        // CountTokens counts an InvokeModel body, which must carry max_tokens (a count request need not).
        ...(operation === "count-tokens" ? { max_tokens: 1 } : {}),
        ...rest,
        anthropic_version: BEDROCK_ANTHROPIC_VERSION,
        ...(betas ? { anthropic_beta: betas.split(",").map((beta) => beta.trim()).filter((beta) => beta !== "") } : {}),
      });
      // CountTokens (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_CountTokens.html): the InvokeModel body, base64.
      const bedrockBody = operation === "count-tokens" ? JSON.stringify({ input: { invokeModel: { body: Buffer.from(invokeBody).toString("base64") } } }) : invokeBody;
      const path = `/model/${encodeURIComponent(model)}/${operation}`;
      return signedCall(call, path, bedrockBody, stream, true);
    },
    streamSink: (sink: BodySink) => new BedrockEventStream(sink, dialect.api === "converse" ? "converse" : "invoke"),
    answerBody(path, body) {
      if (!path.endsWith("/count-tokens")) return body;
      // `{"inputTokens": N}` -> Anthropic's `{"input_tokens": N}`.
      const counted = (JSON.parse(body.toString("utf8")) as { inputTokens?: unknown }).inputTokens;
      return typeof counted === "number" ? Buffer.from(JSON.stringify({ input_tokens: counted })) : body;
    },
    errorBody(status, body) {
      // `{"message": "..."}` (or `Message`) as the AWS SDKs read it.
      let message = `Bedrock answered ${status}`;
      try {
        const parsed = JSON.parse(body.toString("utf8")) as { message?: unknown; Message?: unknown };
        const said = parsed.message ?? parsed.Message;
        if (typeof said === "string") message = said;
      } catch {
        // Not JSON: the status says enough.
      }
      return anthropicErrorBody(errorType(status), message);
    },
  };
}
