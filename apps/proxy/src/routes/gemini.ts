import type { ServerResponse } from "node:http";
import { GatewayError } from "@gateway/contracts";
import { discardBody, readJsonBody, sendJson, type AuthFailureThrottle, type GatewayRequest, type JsonBodyOptions } from "@gateway/http";
import type { KeyRecord, ModelRecord } from "@gateway/redis-store";
import type { ProxyServices } from "../services.ts";
import { authenticate } from "../auth/authenticate.ts";
import { outputBound } from "../core/output-bound.ts";
import type { RelayInput } from "../relay/relay-request.ts";
import type { RouteFacts, WireFormat } from "../core/wire-format.ts";
import { batchEmbedContents, bareModel, embedContent, generateContent } from "../shapes/gemini/wire.ts";
import { respondWithGoogleError } from "../shapes/gemini/errors.ts";
import { aboveMaximum, allowedModel, relayAdmitted } from "./relay-route.ts";
import { countGeminiTokens } from "./gemini-count-tokens.ts";

/*
 * The Gemini API for clients (contract section 16): `@google/genai` and Gemini CLI, under `/v1beta`
 * (Gemini CLI, the SDK's 1.x-2.x) and `/v1` (the SDK's 3.x default) beside the gateway's own `/v1`
 * routes. The key comes as Google's clients send it; errors are in Google's envelope; billing,
 * limits, the journal and the output bound are the relay's, as on every model endpoint.
 */

type Method = "generateContent" | "streamGenerateContent" | "countTokens" | "embedContent" | "batchEmbedContents";

const METHODS: ReadonlySet<string> = new Set(["generateContent", "streamGenerateContent", "countTokens", "embedContent", "batchEmbedContents"]);

export type GeminiMatch =
  | { kind: "list"; pattern: string }
  | { kind: "get"; pattern: string; model: string }
  | { kind: "method"; pattern: string; model: string; method: Method };

/** How long the rest of a refused body is read before the connection is cut (app.ts's grace). */
const REFUSED_BODY_GRACE_MS = 10_000;

const V1BETA_MODELS = "/v1beta/models";
const V1_MODELS = "/v1/models/";

/** The model as the URL names it, percent-decoded (kept as it came when it is not valid encoding: then an unknown model). */
function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * Whether a request no route took is a Gemini one, answered in Google's envelope: anything under
 * `/v1beta`, and a POST to `/v1/models/{model}:{method}` (the OpenAI routes have no POST there).
 */
export function isGeminiPath(method: string, path: string): boolean {
  const lower = path.toLowerCase();
  return lower === "/v1beta" || lower.startsWith("/v1beta/") || (method === "POST" && lower.startsWith(V1_MODELS) && lower.includes(":"));
}

/**
 * The Gemini route a request is for, or null: `GET /v1beta/models[/{model}]` and `POST
 * /v1beta/models/{model}:{method}` or `/v1/models/{model}:{method}` (`path` without the query
 * string; its case kept, the prefix matched in any case as app.ts does).
 */
export function matchGeminiRoute(method: string, path: string): GeminiMatch | null {
  const lower = path.toLowerCase();
  let rest: string;
  let version: string;
  if (lower === V1BETA_MODELS) return method === "GET" ? { kind: "list", pattern: V1BETA_MODELS } : null;
  if (lower.startsWith(`${V1BETA_MODELS}/`)) {
    rest = path.slice(V1BETA_MODELS.length + 1);
    version = "/v1beta";
  } else if (method === "POST" && lower.startsWith(V1_MODELS)) {
    rest = path.slice(V1_MODELS.length);
    version = "/v1";
  } else {
    return null;
  }
  const colon = rest.lastIndexOf(":");
  if (method === "GET" && version === "/v1beta" && colon === -1) {
    return rest.length > 0 ? { kind: "get", pattern: `${V1BETA_MODELS}/*model`, model: bareModel(decoded(rest)) } : null;
  }
  if (method !== "POST" || colon <= 0) return null;
  const name = rest.slice(colon + 1);
  const model = decoded(rest.slice(0, colon));
  if (!METHODS.has(name) || model.length === 0) return null;
  return { kind: "method", pattern: `${version}/models/*model:${name}`, model: bareModel(model), method: name as Method };
}

/**
 * The key as Google's clients send it: `x-goog-api-key` (`@google/genai`, Gemini CLI; an empty one
 * when Gemini CLI has none), `?key=` (Google's REST form), `Authorization: Bearer` or `x-api-key`.
 */
export function geminiKey(request: GatewayRequest): string | null {
  const header = request.headers["x-goog-api-key"];
  if (typeof header === "string" && header.trim().length > 0) return header.trim();
  const query = request.url?.indexOf("?") ?? -1;
  if (query !== -1) {
    const key = new URLSearchParams(request.url!.slice(query + 1)).get("key");
    if (key) return key.trim();
  }
  return null;
}

function keyHeaders(request: GatewayRequest): Record<string, string | string[] | undefined> {
  const key = geminiKey(request);
  return key === null ? request.headers : { "x-api-key": key };
}

/** The model as Google lists it (`GET /v1beta/models`), from the gateway's record. */
function googleModel(model: ModelRecord): Record<string, unknown> {
  return {
    name: `models/${model.name}`,
    baseModelId: model.name,
    version: "001",
    displayName: model.displayName,
    description: `${model.displayName}, served by the gateway`,
    inputTokenLimit: model.capabilities.contextWindow,
    outputTokenLimit: model.capabilities.maxOutputTokens,
    supportedGenerationMethods: ["generateContent", "countTokens", "embedContent", "batchEmbedContents"],
    thinking: model.capabilities.reasoning,
  };
}

export interface GeminiRouterOptions {
  throttle: AuthFailureThrottle;
  bodyLimit: number;
  bodyOptions: JsonBodyOptions;
}

/**
 * The Gemini routes: `match` says whether a request is one (app.ts asks when its own table has no
 * route), `handle` answers it. The key first, from the headers (and the query), then the body.
 */
export function geminiRouter(services: ProxyServices, options: GeminiRouterOptions) {
  const { throttle, bodyLimit, bodyOptions } = options;
  const fail = (request: GatewayRequest, path: string, response: ServerResponse, error: unknown) =>
    throttle.answer(error, services.clientAddress(request), () => respondWithGoogleError(services.logger, request.requestId, path, response, error));
  const settle = (done: Promise<void>, request: GatewayRequest, path: string, response: ServerResponse) =>
    done.then(undefined, (error: unknown) => fail(request, path, response, error));

  const methods: Record<Method, (request: GatewayRequest, response: ServerResponse, key: KeyRecord, route: RouteFacts) => Promise<void>> = {
    generateContent: (request, response, key, route) => relayGemini(services, generateContent, request, response, key, route),
    streamGenerateContent: (request, response, key, route) => relayGemini(services, generateContent, request, response, key, { ...route, stream: true }),
    countTokens: (request, response, key, route) => countGeminiTokens(services, request, response, key, route),
    embedContent: (request, response, key, route) => relayGemini(services, embedContent, request, response, key, route),
    batchEmbedContents: (request, response, key, route) => relayGemini(services, batchEmbedContents, request, response, key, route),
  };

  return {
    match: matchGeminiRoute,
    /** A request under `/v1beta` that no Gemini route takes: Google's envelope, as on every Gemini route; the body is dropped unread. */
    refuse(request: GatewayRequest, path: string, response: ServerResponse, error: unknown): void {
      discardBody(request, bodyLimit, REFUSED_BODY_GRACE_MS);
      fail(request, path, response, error);
    },
    handle(match: GeminiMatch, request: GatewayRequest, response: ServerResponse, path: string): void {
      let key: KeyRecord | Promise<KeyRecord>;
      try {
        key = authenticate(keyHeaders(request), services.keyCache);
      } catch (error) {
        if (match.kind === "method") discardBody(request, bodyLimit, REFUSED_BODY_GRACE_MS);
        fail(request, path, response, error);
        return;
      }
      const withKey = (found: KeyRecord) => {
        if (match.kind === "list") return settle(listModels(services, response, found), request, path, response);
        if (match.kind === "get") return settle(getModel(services, response, found, match.model), request, path, response);
        readJsonBody(
          request,
          bodyLimit,
          (error) => {
            if (error) return fail(request, path, response, error);
            settle(methods[match.method](request, response, found, { model: match.model, stream: false }), request, path, response);
          },
          bodyOptions,
        );
      };
      if (key instanceof Promise) {
        key.then(withKey, (error: unknown) => {
          if (match.kind === "method") discardBody(request, bodyLimit, REFUSED_BODY_GRACE_MS);
          fail(request, path, response, error);
        });
      } else {
        withKey(key);
      }
    },
  };
}

async function listModels(services: ProxyServices, response: ServerResponse, key: KeyRecord): Promise<void> {
  services.routing.requireLoaded();
  sendJson(response, 200, { models: services.routing.allowedModels(key.serverOption).map(googleModel) });
}

async function getModel(services: ProxyServices, response: ServerResponse, key: KeyRecord, name: string): Promise<void> {
  services.routing.requireLoaded();
  const model = services.routing.model(name);
  if (!model || !services.routing.serverOption(key.serverOption)?.models.includes(model.name)) {
    throw new GatewayError("model_not_found", `models/${name} is not found for API version v1beta, or is not supported for this key.`, { param: "model" });
  }
  sendJson(response, 200, googleModel(model));
}

/**
 * generateContent, streamGenerateContent, embedContent, batchEmbedContents: what `relayRoute` does
 * (the model's permission, the output bound, admission, then the relay), with the model and the
 * method from the URL (the output bound reads `generationConfig.maxOutputTokens`).
 */
async function relayGemini(services: ProxyServices, wire: WireFormat, request: GatewayRequest, response: ServerResponse, key: KeyRecord, route: RouteFacts): Promise<void> {
  const parsed = wire.parse(request.body, route);
  const { model, option } = allowedModel(services, key, parsed.model);
  parsed.outputBound = outputBound(parsed.body, wire.endpoint, model.capabilities.maxOutputTokens, aboveMaximum(services, wire, parsed.model, model, option));
  const admitted = await services.limiter.admit(request.requestId, key, option, model.name, parsed, request.bodyBytes, wire.endpoint);
  const input: RelayInput = { services, request, response, wire, parsed, key, model, traceparent: "" };
  await relayAdmitted(input, admitted);
}
