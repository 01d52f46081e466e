import type { ApiClient, Query } from "./api-client.ts";
import type { ApiKey, ApiKeyWithSecret, BudgetPeriod, KeyStatus, List, RateLimits, RequestRow, ServerOption, UpstreamHealthReport, UsageGroup, UsageReport, VendorToken } from "./types.ts";

/**
 * Every vendor API route the console calls, once, with the scope it needs (contract sections 6
 * and 9). Pages call these, never a URL of their own.
 */

export interface KeyListFilter {
  limit: number;
  cursor?: string | null;
  status?: KeyStatus | "";
  search?: string;
}

export interface NewKey {
  server_option: string;
  name: string;
  quota: string | null;
  expires_at: string | null;
  rate_limits: RateLimits;
  metadata: Record<string, unknown>;
  budget: { limit: string; period: BudgetPeriod } | null;
}

export interface KeyChanges {
  name?: string;
  quota?: string | null;
  quota_add?: string;
  rate_limits?: Partial<RateLimits>;
  expires_at?: string | null;
  budget?: { limit: string; period: BudgetPeriod } | null;
  status?: "active" | "disabled";
}

export interface RequestFilter {
  id?: string;
  key_id?: string;
  model?: string;
  status?: string;
  from?: string;
  to?: string;
  limit: number;
  cursor?: string | null;
}

const keyPath = (id: string) => `/api/keys/${encodeURIComponent(id)}`;

export const vendorApi = {
  /** Any valid token may read itself: sign-in checks the token and learns its scopes with it. */
  token: (api: ApiClient) => api.call<VendorToken>("/api/token"),

  /** Any valid token may list its server options. */
  serverOptions: (api: ApiClient) => api.call<List<ServerOption>>("/api/server-options", { query: { limit: 100 } }),

  listKeys: (api: ApiClient, filter: KeyListFilter) => api.call<List<ApiKey>>("/api/keys", { query: { ...filter }, scope: "keys:read" }),

  createKey: (api: ApiClient, body: NewKey, idempotencyKey: string) =>
    api.call<ApiKeyWithSecret>("/api/keys", { method: "POST", body, scope: "keys:create", headers: { "idempotency-key": idempotencyKey } }),

  updateKey: (api: ApiClient, id: string, changes: KeyChanges) => api.call<ApiKey>(keyPath(id), { method: "PATCH", body: changes, scope: "keys:update" }),

  rotateKey: (api: ApiClient, id: string, graceSeconds: number) =>
    api.call<ApiKeyWithSecret>(`${keyPath(id)}/rotate`, { method: "POST", body: { grace_seconds: graceSeconds }, scope: "keys:update" }),

  revokeKey: (api: ApiClient, id: string) => api.call<ApiKey>(keyPath(id), { method: "DELETE", scope: "keys:revoke" }),

  usage: (api: ApiClient, window: { from: string; to: string }, groupBy: UsageGroup) =>
    api.call<UsageReport>("/api/usage", { query: { ...window, group_by: groupBy }, scope: "usage:read" }),

  requests: (api: ApiClient, filter: RequestFilter) => api.call<List<RequestRow>>("/api/requests", { query: { ...filter } satisfies Query, scope: "usage:read" }),

  upstreams: (api: ApiClient) => api.call<UpstreamHealthReport>("/api/upstreams", { scope: "upstreams:read" }),
};
