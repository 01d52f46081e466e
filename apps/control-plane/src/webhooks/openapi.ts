import { WEBHOOK_EVENT_TYPES } from "@gateway/db";
import { errorResponses, jsonRequestBody, jsonResponse, queryParameters, type JsonObject, type NamedSchemas } from "../vendors/openapi/json-schema.ts";
import { requestIdHeader } from "../vendors/openapi/responses.ts";
import { pageQuerySchema } from "../vendors/api-schemas.ts";
import { requestLogQuerySchema, usageReportQuerySchema } from "../vendors/report-schemas.ts";
import type { VendorScope } from "../vendors/vendor-tokens.ts";
import { createdWebhookSchema, createWebhookBodySchema, webhookDeliveryListSchema, webhookDeliverySchema, webhookListSchema, webhookSchema } from "./schemas.ts";

/** The OpenAPI part of webhooks (contract section 19) and the CSV exports, merged into the vendor API's document. */
export const webhookApiSchemas: { input: NamedSchemas; output: NamedSchemas } = {
  input: [[createWebhookBodySchema, "CreateWebhookRequest"]],
  output: [
    [webhookSchema, "Webhook"],
    [createdWebhookSchema, "CreatedWebhook"],
    [webhookListSchema, "WebhookList"],
    [webhookDeliverySchema, "WebhookDelivery"],
    [webhookDeliveryListSchema, "WebhookDeliveryList"],
  ],
};

export const webhookApiParameters: Record<string, JsonObject> = {
  WebhookId: { name: "id", in: "path", required: true, description: "The webhook's id, `wh_...`.", schema: { type: "string" } },
};

function operation(operationId: string, summary: string, scope: VendorScope, rest: JsonObject): JsonObject {
  return { operationId, summary, tags: ["vendor"], security: [{ vendorToken: [scope] }], ...rest };
}

const ok = (schemaId: string, description: string) => jsonResponse(schemaId, description, { headers: requestIdHeader });
const csv = (description: string): JsonObject => ({
  description,
  headers: requestIdHeader,
  content: { "text/csv": { schema: { type: "string" } } },
});
const AUTH = ["400", "401", "403", "500"];
const WEBHOOK_ID = { $ref: "#/components/parameters/WebhookId" };

const SIGNING =
  `Events: ${WEBHOOK_EVENT_TYPES.join(", ")}. Each is POSTed as \`{"id":"evt_...","type","created_at","data":{...}}\` with ` +
  '`x-gateway-signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`; an answer other than 2xx, or none within 10 s, ' +
  "is retried with exponential backoff (the first retry within 30 s) for 24 h. Each event is delivered to each webhook once acknowledged, and fires once per occurrence.";

const CSV_FORMAT =
  "RFC 4180, CRLF line ends, streamed. Text cells are quoted; a cell starting with = + - @ tab or carriage return (or an apostrophe) gets a leading apostrophe so spreadsheets show it as text: remove one leading apostrophe to read the value.";

export function webhookApiPaths(): Record<string, JsonObject> {
  return {
    "/api/webhooks": {
      post: operation("createWebhook", "Register a webhook", "webhooks:write", {
        description: `${SIGNING} The URL must be http(s) and resolve to public addresses (private, loopback and link-local ones are refused unless the gateway runs with WEBHOOK_ALLOW_PRIVATE=true).`,
        requestBody: jsonRequestBody("CreateWebhookRequest", true),
        responses: { "201": ok("CreatedWebhook", "The webhook; `secret` is shown only here."), ...errorResponses(...AUTH, "413", "415") },
      }),
      get: operation("listWebhooks", "List your webhooks, newest first", "webhooks:write", {
        parameters: queryParameters(pageQuerySchema),
        responses: { "200": ok("WebhookList", "A page of webhooks, without secrets."), ...errorResponses(...AUTH) },
      }),
    },
    "/api/webhooks/{id}": {
      parameters: [WEBHOOK_ID],
      get: operation("getWebhook", "Read a webhook", "webhooks:write", {
        responses: { "200": ok("Webhook", "The webhook, without its secret."), ...errorResponses(...AUTH, "404") },
      }),
      delete: operation("deleteWebhook", "Delete a webhook", "webhooks:write", {
        responses: { "200": ok("Webhook", "The webhook with `status: deleted`; nothing more is sent to it."), ...errorResponses(...AUTH, "404") },
      }),
    },
    "/api/webhooks/{id}/deliveries": {
      parameters: [WEBHOOK_ID],
      get: operation("listWebhookDeliveries", "A webhook's deliveries, newest first", "webhooks:write", {
        parameters: queryParameters(pageQuerySchema),
        responses: { "200": ok("WebhookDeliveryList", "A page of deliveries."), ...errorResponses(...AUTH, "404") },
      }),
    },
    "/api/usage.csv": {
      get: operation("exportUsageReport", "GET /api/usage's rows as CSV", "usage:read", {
        description: `The same query and rows as GET /api/usage; the columns are its rows' field names (group, then name and prefix for group_by=key, then requests ... cost, cost_nano), and they sum to its totals. ${CSV_FORMAT}`,
        parameters: queryParameters(usageReportQuerySchema),
        responses: { "200": csv("A header row, then one row per group."), ...errorResponses(...AUTH) },
      }),
    },
    "/api/requests.csv": {
      get: operation("exportRequests", "Your request log as CSV, every page", "usage:read", {
        description: `Every request GET /api/requests lists for the same filters, newest first, its fields as columns (attempts as JSON text). ${CSV_FORMAT}`,
        parameters: queryParameters(requestLogQuerySchema.omit({ limit: true, cursor: true })),
        responses: { "200": csv("A header row, then one row per request."), ...errorResponses(...AUTH) },
      }),
    },
  };
}
