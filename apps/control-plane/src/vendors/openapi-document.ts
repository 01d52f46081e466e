import { z } from "zod";
import {
  apiKeyListSchema,
  apiKeySchema,
  createdApiKeySchema,
  createKeyBodySchema,
  errorEnvelopeSchema,
  idempotencyKeyHeaderSchema,
  keyUsageSchema,
  pageQuerySchema,
  serverOptionListSchema,
  serverOptionSchema,
  usageQuerySchema,
} from "./api-schemas.ts";
import type { VendorScope } from "./vendor-tokens.ts";

/**
 * The OpenAPI 3.1 document of the vendor API, generated from the zod schemas the routes validate
 * with (api-schemas.ts). OpenAPI 3.1 schemas are JSON Schema 2020-12, zod's default target.
 */
type JsonObject = Record<string, unknown>;

const uri = (id: string) => `#/components/schemas/${id}`;
const ref = (id: string) => ({ $ref: uri(id) });

function componentSchemas(entries: [z.ZodType, string][], io: "input" | "output"): Record<string, JsonObject> {
  const registry = z.registry<{ id: string }>();
  for (const [schema, id] of entries) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, { io, uri, unrepresentable: "any", override: io === "output" ? openResponses : tidy });
  return Object.fromEntries(Object.entries(schemas).map(([id, schema]) => [id, withoutDialect(schema as JsonObject)]));
}

/** `format: date-time` says it; zod's long equivalent regex only buries it. */
function tidy({ jsonSchema }: { jsonSchema: JsonObject }): void {
  if (jsonSchema.format === "date-time") delete jsonSchema.pattern;
}

/** Responses may gain fields; a client validating with this document must not break on one. */
function openResponses(context: { jsonSchema: JsonObject }): void {
  tidy(context);
  if (context.jsonSchema.additionalProperties === false) delete context.jsonSchema.additionalProperties;
}

/** Components carry no `$schema` or `$id`: the document's `jsonSchemaDialect` says it once, refs say where. */
function withoutDialect(schema: JsonObject): JsonObject {
  const { $schema: _dialect, $id: _id, ...rest } = schema;
  return rest;
}

function queryParameters(schema: z.ZodObject): JsonObject[] {
  return Object.entries(schema.shape).map(([name, field]) => {
    const json = withoutDialect(z.toJSONSchema(field as z.ZodType, { io: "input", unrepresentable: "any" }) as JsonObject);
    return { name, in: "query", required: false, description: json.description, schema: json };
  });
}

const ERROR_RESPONSES: Record<string, string> = {
  "400": "Malformed JSON, a wrong field type or a missing field (`param` names it).",
  "401": "Missing, unknown or revoked vendor token (`invalid_vendor_token`).",
  "403": "The token lacks the scope (`missing_scope`) or the server option is not yours (`server_option_not_allowed`).",
  "404": "Unknown id, or an id of another vendor (`not_found`).",
  "409": "The Idempotency-Key was used with a different body (`idempotency_conflict`).",
  "413": "The body is over the size limit.",
  "415": "The body is not application/json.",
  "500": "Internal fault.",
  "503": "A dependency (the key store) is down; nothing was changed.",
};

function errors(...statuses: string[]): JsonObject {
  return Object.fromEntries(statuses.map((status) => [status, { $ref: `#/components/responses/Error${status}` }]));
}

function json(schemaId: string, description: string): JsonObject {
  return { description, content: { "application/json": { schema: ref(schemaId) } } };
}

function operation(summary: string, scope: VendorScope | null, rest: JsonObject): JsonObject {
  return { summary, security: [{ vendorToken: scope ? [scope] : [] }], ...rest };
}

const idParameter = { name: "id", in: "path", required: true, schema: { type: "string" }, description: "key_..." };

export function buildOpenApiDocument(): JsonObject {
  const page = queryParameters(pageQuerySchema);
  const authErrors = ["400", "401", "403", "500"];
  return {
    openapi: "3.1.0",
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    info: { title: "Gateway vendor API", version: "1.0.0", description: "Mint and manage API keys in the server options assigned to your vendor." },
    security: [{ vendorToken: [] }],
    paths: {
      "/api/keys": {
        post: operation("Mint a key", "keys:create", {
          operationId: "createKey",
          parameters: [{ name: "Idempotency-Key", in: "header", required: false, schema: withoutDialect(z.toJSONSchema(idempotencyKeyHeaderSchema) as JsonObject) }],
          requestBody: { required: true, content: { "application/json": { schema: ref("CreateKeyRequest") } } },
          responses: { "201": json("CreatedApiKey", "The new key; `key` is the plaintext, shown only here."), ...errors(...authErrors, "409", "413", "415", "503") },
        }),
        get: operation("List your keys, newest first", "keys:read", {
          operationId: "listKeys",
          parameters: page,
          responses: { "200": json("ApiKeyList", "A page of keys."), ...errors(...authErrors) },
        }),
      },
      "/api/keys/{id}": {
        get: operation("Read a key", "keys:read", {
          operationId: "getKey",
          parameters: [idParameter],
          responses: { "200": json("ApiKey", "The key, without its plaintext."), ...errors(...authErrors, "404") },
        }),
        delete: operation("Revoke a key", "keys:revoke", {
          operationId: "revokeKey",
          parameters: [idParameter],
          responses: { "200": json("ApiKey", "The key with `status: revoked`; every proxy refuses it."), ...errors(...authErrors, "404", "503") },
        }),
      },
      "/api/keys/{id}/usage": {
        get: operation("Quota and consumption of a key", "usage:read", {
          operationId: "getKeyUsage",
          parameters: [idParameter, ...queryParameters(usageQuerySchema)],
          responses: { "200": json("KeyUsage", "The key's usage."), ...errors(...authErrors, "404") },
        }),
      },
      "/api/server-options": {
        get: operation("List the server options assigned to your vendor", null, {
          operationId: "listServerOptions",
          parameters: page,
          responses: { "200": json("ServerOptionList", "A page of server options."), ...errors("400", "401", "500") },
        }),
      },
      "/api/openapi.json": {
        get: { summary: "This document", operationId: "getOpenApiDocument", security: [], responses: { "200": { description: "OpenAPI 3.1", content: { "application/json": {} } } } },
      },
    },
    components: {
      securitySchemes: {
        vendorToken: { type: "http", scheme: "bearer", bearerFormat: "vt_...", description: "A vendor token. Scopes: keys:create, keys:read, keys:revoke, usage:read." },
      },
      schemas: {
        ...componentSchemas([[createKeyBodySchema, "CreateKeyRequest"]], "input"),
        ...componentSchemas(
          [
            [apiKeySchema, "ApiKey"],
            [createdApiKeySchema, "CreatedApiKey"],
            [apiKeyListSchema, "ApiKeyList"],
            [serverOptionSchema, "ServerOption"],
            [serverOptionListSchema, "ServerOptionList"],
            [keyUsageSchema, "KeyUsage"],
            [errorEnvelopeSchema, "Error"],
          ],
          "output",
        ),
      },
      responses: Object.fromEntries(Object.entries(ERROR_RESPONSES).map(([status, description]) => [`Error${status}`, json("Error", description)])),
    },
  };
}
