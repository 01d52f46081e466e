/** One HTTP request the bench repeats: where it goes and exactly what it sends. */
export interface RequestTarget {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** The two ways to reach the same upstream: straight to the simulator, or through the proxy. */
export interface Endpoints {
  simulatorUrl: string;
  simulatorKey: string;
  proxyUrl: string;
  proxyKey: string;
}

export type Api = "chat" | "messages";

export interface RequestShape {
  api: Api;
  stream: boolean;
  /** `#sim:` directives put in the user text (chunks, chunk delay). */
  directives?: string;
  /** The model named instead of the API's bench model (the scaling step's, served by the recorded upstream). */
  model?: string;
}

const CHAT_MODEL = "gpt-4o-mini";
/**
 * The chat model of infra/bench/gateway.yaml whose upstream is recorded-upstream.ts (the
 * simulator's answer played back): the scaling step's.
 */
export const RECORDED_CHAT_MODEL = "gpt-4o-mini-recorded";
const MESSAGES_MODEL = "claude-sonnet-4-5";
/**
 * The models of infra/bench/gateway.yaml served by the other shape, by the API that calls them (the
 * cross-shape rows): a Messages client on the OpenAI-shape simulator, a chat client on the
 * Anthropic-shape one. Straight to the simulator (direct and floor sides) the same body is answered
 * in the client's own shape.
 */
export const CROSS_SHAPE_MODEL: Record<Api, string> = { messages: "gpt-4o-mini-cross", chat: "claude-sonnet-4-5-cross" };

/** The client's body. The bench gateway maps each model to the same name upstream, so both paths send the same bytes. */
export function requestBody(shape: RequestShape): string {
  const content = `Hello, how are you today?${shape.directives ? ` ${shape.directives}` : ""}`;
  const messages = [{ role: "user", content }];
  const body =
    shape.api === "chat"
      ? { model: shape.model ?? CHAT_MODEL, messages, ...(shape.stream ? { stream: true } : {}) }
      : { model: shape.model ?? MESSAGES_MODEL, max_tokens: 256, messages, ...(shape.stream ? { stream: true } : {}) };
  return JSON.stringify(body);
}

export function requestTarget(endpoints: Endpoints, shape: RequestShape, viaProxy: boolean): RequestTarget {
  const base = viaProxy ? endpoints.proxyUrl : endpoints.simulatorUrl;
  const key = viaProxy ? endpoints.proxyKey : endpoints.simulatorKey;
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (shape.api === "messages") {
    headers["x-api-key"] = key;
    headers["anthropic-version"] = "2023-06-01";
  } else {
    headers.authorization = `Bearer ${key}`;
  }
  if (shape.stream) headers.accept = "text/event-stream";
  const path = shape.api === "messages" ? "/v1/messages" : "/v1/chat/completions";
  return { url: `${base}${path}`, headers, body: requestBody(shape) };
}

/** The floor's request: the direct side's exact request (the simulator's key and headers), sent to the floor's address. */
export function floorTarget(endpoints: Endpoints, shape: RequestShape, floorUrl: string): RequestTarget {
  return requestTarget({ ...endpoints, simulatorUrl: floorUrl }, shape, false);
}

/**
 * Portkey's request: the direct side's exact request (the simulator's key, the same body) sent to
 * Portkey, with the headers that make it forward to the simulator: the provider of the shape
 * (`openai` for chat completions, `anthropic` for messages) and the simulator as its custom host.
 */
export function portkeyTarget(endpoints: Endpoints, shape: RequestShape, portkeyUrl: string): RequestTarget {
  const target = requestTarget({ ...endpoints, simulatorUrl: portkeyUrl }, shape, false);
  target.headers["x-portkey-provider"] = shape.api === "messages" ? "anthropic" : "openai";
  target.headers["x-portkey-custom-host"] = `${endpoints.simulatorUrl}/v1`;
  return target;
}

/** The event that closes a complete stream of each API. */
export function terminalMarker(api: Api): string {
  return api === "chat" ? "data: [DONE]" : "event: message_stop";
}
