import type { ApiClient, Query } from "./api-client.ts";
import type {
  ApiKey,
  ApiKeyWithSecret,
  Billing,
  BudgetPeriod,
  CheckoutSession,
  Customer,
  CustomerStatus,
  KeyStatus,
  List,
  Plan,
  PlanLimit,
  RateLimits,
  RedemptionCode,
  RequestRow,
  ServerOption,
  Subscription,
  UpstreamHealthReport,
  UsageGroup,
  UsageReport,
  VendorToken,
  WalletEntry,
  Payment,
  Webhook,
  WebhookDelivery,
  WebhookWithSecret,
} from "./types.ts";

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
  /** The customer the key belongs to (contract section 19); left out when none. */
  customer_id?: string;
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

export interface NewCustomer {
  name: string;
  email?: string;
  billing: Billing;
  budget: { limit: string; period: BudgetPeriod } | null;
}

export interface CustomerChanges {
  name?: string;
  email?: string | null;
  budget?: { limit: string; period: BudgetPeriod } | null;
  status?: CustomerStatus;
}

export interface NewPlan {
  name: string;
  price: string;
  period: BudgetPeriod;
  limits: PlanLimit[];
  models?: string[];
}

export interface ListPage {
  limit: number;
  cursor?: string | null;
  search?: string;
}

const keyPath = (id: string) => `/api/keys/${encodeURIComponent(id)}`;
const customerPath = (id: string) => `/api/customers/${encodeURIComponent(id)}`;
const webhookPath = (id: string) => `/api/webhooks/${encodeURIComponent(id)}`;

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

  key: (api: ApiClient, id: string) => api.call<ApiKey>(keyPath(id), { scope: "keys:read" }),

  /** One key's totals in a window (the /v1/usage body, read by the vendor). */
  keyUsage: (api: ApiClient, id: string, window: { from: string; to: string }) =>
    api.call<KeyUsage>(`${keyPath(id)}/usage`, { query: window, scope: "usage:read" }),

  /* ---- Contract section 19: the reseller's business ---- */

  listCustomers: (api: ApiClient, page: ListPage) => api.call<List<Customer>>("/api/customers", { query: { ...page }, scope: "customers:read" }),
  customer: (api: ApiClient, id: string) => api.call<Customer>(customerPath(id), { scope: "customers:read" }),
  createCustomer: (api: ApiClient, { budget, ...body }: NewCustomer) =>
    api.call<Customer>("/api/customers", { method: "POST", body: budget ? { ...body, budget } : body, scope: "customers:write" }),
  updateCustomer: (api: ApiClient, id: string, changes: CustomerChanges) => api.call<Customer>(customerPath(id), { method: "PATCH", body: changes, scope: "customers:write" }),
  /** A customer's keys: the key list has no customer filter, so its pages are read and filtered here. */
  customerKeys: async (api: ApiClient, id: string): Promise<ApiKey[]> => {
    const keys: ApiKey[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 20; page++) {
      const list: List<ApiKey> = await api.call<List<ApiKey>>("/api/keys", { query: { limit: 100, cursor }, scope: "keys:read" });
      keys.push(...list.data.filter((key) => key.customer_id === id));
      if (!list.has_more || !list.next_cursor) break;
      cursor = list.next_cursor;
    }
    return keys;
  },
  subscribe: (api: ApiClient, id: string, planId: string) =>
    api.call<Subscription>(`${customerPath(id)}/subscriptions`, { method: "POST", body: { plan_id: planId }, scope: "plans:write" }),
  cancelSubscription: (api: ApiClient, customerId: string, subscriptionId: string) =>
    api.call<Subscription>(`${customerPath(customerId)}/subscriptions/${encodeURIComponent(subscriptionId)}`, { method: "DELETE", scope: "plans:write" }),
  grantCredits: (api: ApiClient, id: string, amount: string, reason: string) =>
    api.call<WalletEntry>(`${customerPath(id)}/credits`, { method: "POST", body: { amount, reason }, scope: "customers:write" }),
  walletEntries: (api: ApiClient, id: string, page: ListPage) => api.call<List<WalletEntry>>(`${customerPath(id)}/wallet/entries`, { query: { ...page }, scope: "customers:read" }),
  payments: (api: ApiClient, id: string, page: ListPage) => api.call<List<Payment>>(`${customerPath(id)}/payments`, { query: { ...page }, scope: "customers:read" }),
  createCheckoutSession: (api: ApiClient, id: string, body: { amount: string; success_url: string; cancel_url: string }) =>
    api.call<CheckoutSession>(`${customerPath(id)}/checkout-sessions`, { method: "POST", body, scope: "customers:write" }),

  listPlans: (api: ApiClient, page: ListPage) => api.call<List<Plan>>("/api/plans", { query: { ...page }, scope: "customers:read" }),
  createPlan: (api: ApiClient, body: NewPlan) => api.call<Plan>("/api/plans", { method: "POST", body, scope: "plans:write" }),

  listRedemptionCodes: (api: ApiClient, page: ListPage) => api.call<List<RedemptionCode>>("/api/redemption-codes", { query: { ...page }, scope: "customers:read" }),
  createRedemptionCodes: (api: ApiClient, body: { count: number; amount: string; expires_at?: string | null }) =>
    api.call<List<RedemptionCode>>("/api/redemption-codes", { method: "POST", body, scope: "customers:write" }),

  listWebhooks: (api: ApiClient, page: ListPage) => api.call<List<Webhook>>("/api/webhooks", { query: { ...page }, scope: "webhooks:write" }),
  webhook: (api: ApiClient, id: string) => api.call<Webhook>(webhookPath(id), { scope: "webhooks:write" }),
  createWebhook: (api: ApiClient, body: { url: string; events: string[] }) => api.call<WebhookWithSecret>("/api/webhooks", { method: "POST", body, scope: "webhooks:write" }),
  deleteWebhook: (api: ApiClient, id: string) => api.call<unknown>(webhookPath(id), { method: "DELETE", scope: "webhooks:write" }),
  webhookDeliveries: (api: ApiClient, id: string, page: ListPage) =>
    api.call<List<WebhookDelivery>>(`${webhookPath(id)}/deliveries`, { query: { ...page }, scope: "webhooks:write" }),

  /** CSV exports (contract section 19): the same filters as the JSON reports. */
  usageCsv: (api: ApiClient, query: Query) => api.fetchBlob("/api/usage.csv", { query, scope: "usage:read" }),
  requestsCsv: (api: ApiClient, query: Query) => api.fetchBlob("/api/requests.csv", { query, scope: "usage:read" }),
};

/** GET /api/keys/{id}/usage: the /v1/usage body (contract section 5). */
export interface KeyUsage {
  object: "usage";
  quota: { limit: string | null; used: string; remaining: string | null; currency: string };
  consumption: { requests: number; input_tokens: number; output_tokens: number; images: number; cost: string };
  by_model: { model: string; requests: number; input_tokens: number; output_tokens: number; cost: string }[];
}
