import { ApiError, errorFromResponse, networkError } from "./api-error.ts";
import type { Scope } from "./types.ts";

export type Query = Record<string, string | number | null | undefined>;

export interface CallOptions {
  method?: "GET" | "POST" | "PATCH" | "DELETE";
  query?: Query;
  body?: unknown;
  /** The scope the route needs: a 403 `missing_scope` is reported against it. */
  scope?: Scope;
  headers?: Record<string, string>;
}

export interface ApiClient {
  call<Result>(path: string, options?: CallOptions): Promise<Result>;
  /** A GET whose answer is a file (CSV exports): the body as a Blob, errors as for `call`. */
  fetchBlob(path: string, options?: Pick<CallOptions, "query" | "scope">): Promise<Blob>;
}

export interface ApiHooks {
  /** The token stopped working (revoked, or never valid): the session ends. */
  onUnauthorized(error: ApiError): void;
  /** The token lacks `scope`: the console hides what needs it. */
  onMissingScope(scope: Scope, error: ApiError): void;
}

/** `/api/keys` + `{ limit: 20, search: "" }` -> `/api/keys?limit=20` (empty values left out). */
export function withQuery(path: string, query: Query = {}): string {
  const parameters = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== null && value !== undefined && value !== "") parameters.set(name, String(value));
  }
  const text = parameters.toString();
  return text ? `${path}?${text}` : path;
}

/**
 * The one way the console talks to the gateway: same-origin relative URLs under /api, the vendor
 * token in the Authorization header (never in a URL), JSON both ways, every failure an ApiError.
 */
export function createApiClient(token: string, hooks: ApiHooks): ApiClient {
  const send = async (path: string, options: CallOptions, accept: string): Promise<Response> => {
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept, ...options.headers };
    if (options.body !== undefined) headers["content-type"] = "application/json";
    let response: Response;
    try {
      response = await fetch(withQuery(path, options.query), {
        method: options.method ?? "GET",
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        cache: "no-store",
        credentials: "omit",
      });
    } catch (cause) {
      throw networkError(cause);
    }
    if (!response.ok) {
      const error = await errorFromResponse(response);
      if (error.isUnauthorized) hooks.onUnauthorized(error);
      else if (error.isMissingScope && options.scope) hooks.onMissingScope(options.scope, error);
      throw error;
    }
    return response;
  };
  return {
    async call<Result>(path: string, options: CallOptions = {}): Promise<Result> {
      const response = await send(path, options, "application/json");
      return (await response.json()) as Result;
    },
    async fetchBlob(path: string, options: Pick<CallOptions, "query" | "scope"> = {}): Promise<Blob> {
      const response = await send(path, options, "text/csv, application/json");
      return await response.blob();
    },
  };
}
