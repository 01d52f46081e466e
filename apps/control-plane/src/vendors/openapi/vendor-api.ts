import {
  apiKeyListSchema,
  apiKeySchema,
  createdApiKeySchema,
  createKeyBodySchema,
  errorEnvelopeSchema,
  idempotencyKeyHeaderSchema,
  keyListQuerySchema,
  keyUsageSchema,
  pageQuerySchema,
  rotateKeyBodySchema,
  serverOptionListSchema,
  serverOptionSchema,
  updateKeyBodySchema,
  usageQuerySchema,
} from "../api-schemas.ts";
import {
  auditEntryListSchema,
  auditEntrySchema,
  auditLogQuerySchema,
  requestListSchema,
  requestLogQuerySchema,
  requestSchema,
  usageReportQuerySchema,
  usageReportSchema,
  vendorTokenSchema,
} from "../report-schemas.ts";
import { upstreamHealthReportSchema, upstreamHealthSchema } from "../upstream-schemas.ts";
import { VENDOR_SCOPES, type VendorScope } from "../vendor-tokens.ts";
import {
  createCustomerBodySchema,
  createPlanBodySchema,
  createSubscriptionBodySchema,
  customerListQuerySchema,
  customerListSchema,
  customerSchema,
  planListSchema,
  subscriptionListQuerySchema,
  subscriptionListSchema,
  planSchema,
  subscriptionSchema,
  updateCustomerBodySchema,
} from "../../customers/customer-schemas.ts";
import { requestIdHeader } from "./responses.ts";
import { webhookApiParameters, webhookApiPaths, webhookApiSchemas } from "../../webhooks/openapi.ts";
import { walletApiPaths, walletApiSchemas } from "../../wallet/openapi.ts";
import { errorResponses, jsonRequestBody, jsonResponse, parameterOf, queryParameters, type JsonObject, type NamedSchemas } from "./json-schema.ts";

/** The vendor (reseller) API under /api (contract sections 6 and 9), from the schemas its routes validate with. */
export const VENDOR_TAG = { name: "vendor", description: "The vendor (reseller) API: keys, usage, the request log, the audit log and the calling token. Authenticated with a vendor token `vt_...`." };

export const vendorApiSchemas: { input: NamedSchemas; output: NamedSchemas } = {
  input: [
    [createKeyBodySchema, "CreateKeyRequest"],
    [updateKeyBodySchema, "UpdateKeyRequest"],
    [rotateKeyBodySchema, "RotateKeyRequest"],
    ...webhookApiSchemas.input,
    ...walletApiSchemas.input,
    [createCustomerBodySchema, "CreateCustomerRequest"],
    [updateCustomerBodySchema, "UpdateCustomerRequest"],
    [createPlanBodySchema, "CreatePlanRequest"],
    [createSubscriptionBodySchema, "CreateSubscriptionRequest"],
  ],
  output: [
    [apiKeySchema, "ApiKey"],
    [createdApiKeySchema, "CreatedApiKey"],
    [apiKeyListSchema, "ApiKeyList"],
    [serverOptionSchema, "ServerOption"],
    [serverOptionListSchema, "ServerOptionList"],
    [keyUsageSchema, "KeyUsage"],
    [usageReportSchema, "UsageReport"],
    [requestSchema, "Request"],
    [requestListSchema, "RequestList"],
    [auditEntrySchema, "AuditEntry"],
    [auditEntryListSchema, "AuditEntryList"],
    [vendorTokenSchema, "VendorToken"],
    [upstreamHealthSchema, "UpstreamHealth"],
    [upstreamHealthReportSchema, "UpstreamHealthReport"],
    ...webhookApiSchemas.output,
    ...walletApiSchemas.output,
    [customerSchema, "Customer"],
    [customerListSchema, "CustomerList"],
    [planSchema, "Plan"],
    [planListSchema, "PlanList"],
    [subscriptionListSchema, "SubscriptionList"],
    [subscriptionSchema, "Subscription"],
    [errorEnvelopeSchema, "Error"],
  ],
};

export const vendorTokenScheme = {
  type: "http",
  scheme: "bearer",
  bearerFormat: "vt_...",
  description: `A vendor token, \`Authorization: Bearer vt_...\`. Scopes: ${VENDOR_SCOPES.join(", ")}; any valid token may read itself (GET /api/token), list its server options and read its audit log.`,
};

export const vendorApiParameters: Record<string, JsonObject> = {
  KeyId: { name: "id", in: "path", required: true, description: "The key's id, `key_...`.", schema: { type: "string" } },
  IdempotencyKey: parameterOf("Idempotency-Key", "header", idempotencyKeyHeaderSchema),
  ...webhookApiParameters,
  CustomerId: { name: "id", in: "path", required: true, description: "The customer's id, `cus_...`.", schema: { type: "string" } },
  PlanId: { name: "id", in: "path", required: true, description: "The plan's id, `plan_...`.", schema: { type: "string" } },
  SubscriptionId: { name: "sub_id", in: "path", required: true, description: "The subscription's id, `sub_...`.", schema: { type: "string" } },
};

const parameter = (id: string) => ({ $ref: `#/components/parameters/${id}` });

/** `scope`: the one the token needs; `null`: any valid token; `"public"`: no token. */
function operation(operationId: string, summary: string, scope: VendorScope | null | "public", rest: JsonObject): JsonObject {
  const security = scope === "public" ? [] : [{ vendorToken: scope ? [scope] : [] }];
  return { operationId, summary, tags: [VENDOR_TAG.name], security, ...rest };
}

const ok = (schemaId: string, description: string) => jsonResponse(schemaId, description, { headers: requestIdHeader });
const AUTH = ["400", "401", "403", "500"];
const WRITE = [...AUTH, "404", "409", "413", "415", "503"];

export function vendorApiPaths(): Record<string, JsonObject> {
  const page = queryParameters(pageQuerySchema);
  return {
    "/api/keys": {
      post: operation("createKey", "Mint a key", "keys:create", {
        parameters: [parameter("IdempotencyKey")],
        requestBody: jsonRequestBody("CreateKeyRequest", true),
        responses: { "201": ok("CreatedApiKey", "The new key; `key` is the plaintext, shown only here."), ...errorResponses(...WRITE.filter((status) => status !== "404")) },
      }),
      get: operation("listKeys", "List your keys, newest first", "keys:read", {
        parameters: [...page, ...queryParameters(keyListQuerySchema)],
        responses: { "200": ok("ApiKeyList", "A page of keys."), ...errorResponses(...AUTH) },
      }),
    },
    "/api/keys/{id}": {
      parameters: [parameter("KeyId")],
      get: operation("getKey", "Read a key", "keys:read", {
        responses: { "200": ok("ApiKey", "The key, without its plaintext."), ...errorResponses(...AUTH, "404") },
      }),
      patch: operation("updateKey", "Change a key: name, quota or top-up, limits, budget, expiry, status", "keys:update", {
        description: "Only the fields sent change. Every proxy sees the change within 1 s.",
        parameters: [parameter("IdempotencyKey")],
        requestBody: jsonRequestBody("UpdateKeyRequest", true),
        responses: { "200": ok("ApiKey", "The changed key."), ...errorResponses(...WRITE) },
      }),
      delete: operation("revokeKey", "Revoke a key", "keys:revoke", {
        responses: { "200": ok("ApiKey", "The key with `status: revoked`; every proxy refuses it."), ...errorResponses(...AUTH, "404", "503") },
      }),
    },
    "/api/keys/{id}/rotate": {
      parameters: [parameter("KeyId")],
      post: operation("rotateKey", "Give a key a new secret", "keys:update", {
        description: "Same id, settings and usage history. The old secret is refused within 1 s, or after `grace_seconds`. The body is optional.",
        parameters: [parameter("IdempotencyKey")],
        requestBody: jsonRequestBody("RotateKeyRequest", false),
        responses: { "200": ok("CreatedApiKey", "The key with its new plaintext `key`, shown only here."), ...errorResponses(...WRITE) },
      }),
    },
    "/api/keys/{id}/usage": {
      parameters: [parameter("KeyId")],
      get: operation("getKeyUsage", "Quota and consumption of a key", "usage:read", {
        parameters: queryParameters(usageQuerySchema),
        responses: { "200": ok("KeyUsage", "The key's usage, as its holder reads it at GET /v1/usage."), ...errorResponses(...AUTH, "404") },
      }),
    },
    "/api/usage": {
      get: operation("getUsageReport", "Your whole consumption, grouped by day, model, key, server option or customer", "usage:read", {
        parameters: queryParameters(usageReportQuerySchema),
        responses: { "200": ok("UsageReport", "Totals and one row per group; the totals equal the sum of the rows."), ...errorResponses(...AUTH) },
      }),
    },
    "/api/requests": {
      get: operation("listRequests", "Your request log, newest first", "usage:read", {
        parameters: queryParameters(requestLogQuerySchema),
        responses: { "200": ok("RequestList", "A page of requests."), ...errorResponses(...AUTH) },
      }),
    },
    "/api/customers": {
      post: operation("createCustomer", "Create a customer (an end user of yours)", "customers:write", {
        description: "Its `budget` caps the spend of all its keys together; a `prepaid` customer's keys draw on its wallet balance. An `Idempotency-Key` makes a retry create it once (24 h).",
        parameters: [parameter("IdempotencyKey")],
        requestBody: jsonRequestBody("CreateCustomerRequest", true),
        responses: { "201": ok("Customer", "The new customer."), ...errorResponses(...WRITE.filter((status) => status !== "404")) },
      }),
      get: operation("listCustomers", "List your customers, newest first", "customers:read", {
        parameters: queryParameters(customerListQuerySchema),
        responses: { "200": ok("CustomerList", "A page of customers."), ...errorResponses(...AUTH) },
      }),
    },
    "/api/customers/{id}": {
      parameters: [parameter("CustomerId")],
      get: operation("getCustomer", "Read a customer: balance, budget use, active subscription", "customers:read", {
        responses: { "200": ok("Customer", "The customer."), ...errorResponses(...AUTH, "404") },
      }),
      patch: operation("updateCustomer", "Change a customer: name, email, metadata, budget, status", "customers:write", {
        description: "Only the fields sent change. A disabled customer's keys get 401 `key_disabled` on every proxy within 1 s.",
        requestBody: jsonRequestBody("UpdateCustomerRequest", true),
        responses: { "200": ok("Customer", "The changed customer."), ...errorResponses(...WRITE.filter((status) => status !== "409")) },
      }),
    },
    "/api/customers/{id}/subscriptions": {
      parameters: [parameter("CustomerId")],
      get: operation("listSubscriptions", "List a customer's subscriptions, newest first", "customers:read", {
        parameters: queryParameters(subscriptionListQuerySchema),
        responses: { "200": ok("SubscriptionList", "A page of subscriptions: the active one and those that ended."), ...errorResponses(...AUTH, "404") },
      }),
      post: operation("createSubscription", "Subscribe a customer to a plan", "plans:write", {
        description:
          "While active, every key of the customer is held to the plan's rolling windows (429 `plan_limit_exceeded` with `retry-after`) and models (403 `model_not_allowed`). An earlier active subscription is canceled by the new one (nothing refunded). The plan's price is charged to the customer's wallet now and at each renewal (a `plan` wallet entry, once per period); a prepaid customer whose balance does not cover it gets 402 `insufficient_balance`, and at a renewal its subscription lapses (`canceled`, `canceled_at` = the end of the last paid period). Postpaid: always charged, the balance goes below zero.",
        requestBody: jsonRequestBody("CreateSubscriptionRequest", true),
        responses: { "201": ok("Subscription", "The active subscription."), ...errorResponses(...WRITE.filter((status) => status !== "409"), "402") },
      }),
    },
    "/api/customers/{id}/subscriptions/{sub_id}": {
      parameters: [parameter("CustomerId"), parameter("SubscriptionId")],
      delete: operation("cancelSubscription", "Cancel a subscription now", "plans:write", {
        responses: { "200": ok("Subscription", "The subscription with `status: canceled`."), ...errorResponses(...AUTH, "404", "503") },
      }),
    },
    "/api/plans": {
      post: operation("createPlan", "Create a plan: a price and rolling windows of requests and/or USD", "plans:write", {
        description: "An `Idempotency-Key` makes a retry create it once (24 h).",
        parameters: [parameter("IdempotencyKey")],
        requestBody: jsonRequestBody("CreatePlanRequest", true),
        responses: { "201": ok("Plan", "The new plan."), ...errorResponses(...WRITE.filter((status) => status !== "404" && status !== "503")) },
      }),
      get: operation("listPlans", "List your plans, newest first", "customers:read", {
        parameters: page,
        responses: { "200": ok("PlanList", "A page of plans."), ...errorResponses(...AUTH) },
      }),
    },
    "/api/plans/{id}": {
      parameters: [parameter("PlanId")],
      get: operation("getPlan", "Read a plan", "customers:read", {
        responses: { "200": ok("Plan", "The plan."), ...errorResponses(...AUTH, "404") },
      }),
    },
    "/api/audit-log": {
      get: operation("listAuditLog", "Changes made to your keys, newest first", null, {
        parameters: queryParameters(auditLogQuerySchema),
        responses: { "200": ok("AuditEntryList", "A page of audit entries."), ...errorResponses("400", "401", "500") },
      }),
    },
    "/api/upstreams": {
      get: operation("getUpstreamHealth", "Health of the upstreams serving your models", "upstreams:read", {
        description:
          "Each upstream's circuit state, attempts and failures by cause, and latency over the last minute, summed over the proxy processes that reported within 30 s. Names only: never a base URL or a credential.",
        responses: { "200": ok("UpstreamHealthReport", "The upstreams serving your models, by name."), ...errorResponses(...AUTH) },
      }),
    },
    "/api/token": {
      get: operation("getToken", "The calling vendor token: its vendor and scopes", null, {
        description: "What the token may do, so a client can show only that. Never the secret or its hash.",
        responses: { "200": ok("VendorToken", "The token, without its secret."), ...errorResponses("401", "500") },
      }),
    },
    "/api/server-options": {
      get: operation("listServerOptions", "List the server options assigned to your vendor", null, {
        parameters: page,
        responses: { "200": ok("ServerOptionList", "A page of server options."), ...errorResponses("400", "401", "500") },
      }),
    },
    "/api/openapi.json": {
      get: operation("getOpenApiDocument", "This document", "public", {
        responses: { "200": { description: "The OpenAPI 3.1 document of `/v1` and `/api`.", content: { "application/json": { schema: { type: "object" } } } } },
      }),
    },
    ...webhookApiPaths(),
    ...walletApiPaths(),
  };
}
