/**
 * The vendor API's shapes as the console reads them (contract sections 6 and 9), limited to the
 * fields it shows. The control plane's zod schemas (apps/control-plane/src/vendors/) are the source.
 */
export type Scope =
  | "keys:create"
  | "keys:read"
  | "keys:update"
  | "keys:revoke"
  | "usage:read"
  | "upstreams:read"
  | "customers:read"
  | "customers:write"
  | "plans:write"
  | "webhooks:write";

export type KeyStatus = "active" | "disabled" | "revoked";
export type BudgetPeriod = "day" | "week" | "month";
export type RequestStatus = "ok" | "error" | "client_aborted" | "interrupted";
export type UsageGroup = "day" | "model" | "key" | "server_option";

export interface List<Item> {
  object: "list";
  data: Item[];
  has_more: boolean;
  next_cursor: string | null;
}

export interface RateLimits {
  rpm: number | null;
  tpm: number | null;
}

export interface ApiKey {
  id: string;
  object: "api_key";
  prefix: string;
  name: string;
  server_option: string;
  quota: string | null;
  expires_at: string | null;
  created_at: string;
  status: KeyStatus;
  rate_limits: RateLimits;
  metadata: Record<string, unknown>;
  budget: { limit: string; period: BudgetPeriod; used: string; resets_at: string } | null;
  last_used_at: string | null;
  /** The customer the key belongs to (contract section 19), when it belongs to one. */
  customer_id?: string | null;
}

/** The mint and rotate responses: the key object with its plaintext, shown once. */
export interface ApiKeyWithSecret extends ApiKey {
  key: string;
}

/** USD per million tokens (input, output, cache reads and writes) or per unit (image, request, web search). */
export interface UnitPrices {
  input: string;
  output: string;
  cached_input: string;
  cache_write: string;
  cache_write_1h: string;
  image: string;
  request: string;
  web_search: string;
}

export interface PriceTier extends UnitPrices {
  above_input_tokens: number;
}

export interface ModelPrice extends UnitPrices {
  /** Long-context tiers, ascending: a request whose input is above the threshold pays the tier's prices. */
  tiers: PriceTier[];
}

export interface ServerOption {
  id: string;
  name: string;
  description: string;
  models: string[];
  pricing: Record<string, ModelPrice>;
  rate_limits: RateLimits;
}

export interface UsageFigures {
  requests: number;
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
  cache_write_tokens: number;
  /** Part of cache_write_tokens written for one hour. */
  cache_write_1h_tokens: number;
  reasoning_tokens: number;
  images: number;
  web_search_requests: number;
  cost: string;
}

export interface UsageRow extends UsageFigures {
  group: string;
  /** group_by=key: the key's name and display prefix. */
  name?: string;
  prefix?: string;
}

export interface UsageReport {
  object: "usage_report";
  from: string;
  to: string;
  group_by: UsageGroup;
  totals: UsageFigures;
  data: UsageRow[];
}

export interface RequestRow {
  id: string;
  key_id: string;
  model: string;
  endpoint: string;
  stream: boolean;
  status: RequestStatus;
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
  cache_write_tokens: number;
  cache_write_1h_tokens: number;
  reasoning_tokens: number;
  images: number;
  web_search_requests: number;
  cost: string;
  estimated: boolean;
  ttfb_ms: number | null;
  duration_ms: number;
  created_at: string;
  /** The upstream attempts in order (failover makes several); empty for requests recorded before they were kept. */
  attempts: RequestAttempt[];
}

/** Why an upstream attempt ended: `ok`, or the failure's cause. */
export type AttemptCause = "ok" | "connect_error" | "timeout" | "http_429" | "http_5xx" | "http_4xx" | "stream_error" | "client_aborted" | "circuit_open";

export interface RequestAttempt {
  upstream: string;
  upstream_model: string | null;
  cause: AttemptCause;
  status: number | null;
  duration_ms: number;
  ttfb_ms: number | null;
}

export type CircuitState = "closed" | "half_open" | "open";

/** GET /api/upstreams: one upstream serving the vendor's models, over the proxies' last minute. */
export interface UpstreamHealth {
  object: "upstream";
  name: string;
  models: string[];
  /** `reporting`: fresh figures; `stale`: only reports older than `stale_after_seconds`; `no_data`: never reported. */
  state: "reporting" | "stale" | "no_data";
  reported_at: string | null;
  processes: string[];
  circuit: CircuitState | null;
  attempts: number;
  failures: Record<string, number>;
  p50_ms: number | null;
  p99_ms: number | null;
  ttfb_p50_ms: number | null;
}

export interface UpstreamHealthReport {
  object: "upstream_health";
  generated_at: string;
  window_seconds: number;
  stale_after_seconds: number;
  processes: { id: string; reported_at: string; stale: boolean }[];
  data: UpstreamHealth[];
}

/** GET /api/token: the calling vendor token, its vendor and what it may do; never its secret. */
export interface VendorToken {
  object: "vendor_token";
  id: string;
  name: string;
  /** The token's first characters, `vt_ab12`. */
  prefix: string;
  vendor: { id: string; name: string };
  scopes: Scope[];
  created_at: string;
  last_used_at: string | null;
}

export interface ErrorEnvelope {
  type: "error";
  error: { type: string; message: string; code: string | null; param: string | null };
  request_id: string;
}

/* ---- The reseller's business (contract section 19) ---- */

export type Billing = "postpaid" | "prepaid";
export type CustomerStatus = "active" | "disabled";

export interface Customer {
  id: string;
  object: "customer";
  name: string;
  email: string | null;
  status: CustomerStatus;
  billing: Billing;
  /** The wallet's balance, USD. */
  balance: string;
  budget: { limit: string; period: BudgetPeriod; used?: string; resets_at?: string } | null;
  metadata?: Record<string, unknown>;
  /** The active subscription, if any. */
  subscription?: Subscription | null;
  created_at: string;
}

export type PlanWindow = "5h" | "day" | "week" | "month";

export interface PlanLimit {
  window: PlanWindow;
  requests?: number | null;
  usd?: string | null;
}

export interface Plan {
  id: string;
  object: "plan";
  name: string;
  price: string;
  period: BudgetPeriod;
  limits: PlanLimit[];
  models?: string[];
  status?: string;
  created_at?: string;
}

export interface Subscription {
  id: string;
  object: "subscription";
  customer_id: string;
  plan_id: string;
  status: "active" | "canceled" | string;
  current_period_start: string;
  current_period_end: string;
  created_at?: string;
  canceled_at?: string | null;
}

/** A wallet entry: a credit (grant, payment, redeemed code, auto top-up) or a plan charge (negative). */
export interface WalletEntry {
  id: string;
  object?: string;
  amount: string;
  kind: string;
  reason?: string;
  source_id?: string | null;
  created_at: string;
}

/** A card payment: a Stripe Checkout payment or an auto top-up charge. */
export interface Payment {
  id: string;
  object: "payment";
  customer_id: string;
  kind: "checkout" | "auto_top_up";
  amount: string;
  status: "pending" | "succeeded" | "failed";
  stripe_id: string;
  created_at: string;
  completed_at: string | null;
}

export interface RedemptionCode {
  id: string;
  object?: string;
  /** The plaintext, only in the create answer. */
  code?: string;
  prefix?: string;
  amount: string;
  status?: "active" | "redeemed" | "expired";
  expires_at?: string | null;
  redeemed_at?: string | null;
  created_at?: string;
}

export interface CheckoutSession {
  id: string;
  url: string;
}

export const WEBHOOK_EVENTS = ["key.quota_low", "key.quota_exhausted", "key.budget_exceeded", "customer.balance_low", "payment.succeeded", "key.revoked"] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export interface Webhook {
  id: string;
  object: "webhook";
  url: string;
  events: string[];
  created_at?: string;
}

export interface WebhookWithSecret extends Webhook {
  secret: string;
}

export interface WebhookDelivery {
  id: string;
  event: string;
  status: string;
  attempts: number;
  response_status: number | null;
  created_at: string;
}
