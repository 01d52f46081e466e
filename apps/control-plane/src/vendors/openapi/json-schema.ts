import { z } from "zod";

/**
 * zod -> OpenAPI 3.1 pieces. OpenAPI 3.1 schemas are JSON Schema 2020-12, zod's default target,
 * so the schemas the routes validate with become the document's schemas as they are.
 */
export type JsonObject = Record<string, unknown>;

/** One schema under a component name, read as a request (`input`) or as a response (`output`). */
export type NamedSchemas = [z.ZodType, string][];

const uri = (id: string) => `#/components/schemas/${id}`;
export const ref = (id: string) => ({ $ref: uri(id) });

/**
 * Component schemas; a registered schema used inside another becomes a `$ref` to it. One registry
 * per direction: a body's defaults make its fields optional going in and present coming out.
 */
export function componentSchemas(entries: NamedSchemas, io: "input" | "output"): Record<string, JsonObject> {
  const registry = z.registry<{ id: string }>();
  for (const [schema, id] of entries) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, { io, uri, unrepresentable: "any", override: io === "output" ? openResponses : tidy });
  return Object.fromEntries(Object.entries(schemas).map(([id, schema]) => [id, withoutDialect(schema as JsonObject)]));
}

/** An inline schema (a parameter's), read as input. */
function inlineSchema(schema: z.ZodType): JsonObject {
  return withoutDialect(z.toJSONSchema(schema, { io: "input", unrepresentable: "any", override: tidy }) as JsonObject);
}

/**
 * `format: date-time` says it; zod's long equivalent regex only buries it. Likewise the safe-integer
 * bounds zod puts on every `.int()`: JSON numbers past them are not what a reader needs to know.
 */
function tidy({ jsonSchema }: { jsonSchema: JsonObject }): void {
  if (jsonSchema.format === "date-time" || jsonSchema.format === "date") delete jsonSchema.pattern;
  if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
  if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
}

/** Responses may gain fields; a client validating with this document must not break on one. */
function openResponses(context: { jsonSchema: JsonObject }): void {
  tidy(context);
  if (context.jsonSchema.additionalProperties === false) delete context.jsonSchema.additionalProperties;
}

/** No `$schema` or `$id` inside: the document's `jsonSchemaDialect` says it once, refs say where. */
function withoutDialect(schema: JsonObject): JsonObject {
  const { $schema: _dialect, $id: _id, ...rest } = schema;
  return rest;
}

/** An optional query or header parameter of a zod schema, its description lifted up. */
export function parameterOf(name: string, location: "query" | "header", schema: z.ZodType): JsonObject {
  const { description, ...json } = inlineSchema(schema);
  return { name, in: location, required: false, ...(description ? { description } : {}), schema: json };
}

/** Every field of a query schema as an optional query parameter. */
export function queryParameters(schema: z.ZodObject): JsonObject[] {
  return Object.entries(schema.shape).map(([name, field]) => parameterOf(name, "query", field as z.ZodType));
}

/** A JSON response of a component schema. */
export function jsonResponse(schemaId: string, description: string, extra: JsonObject = {}): JsonObject {
  return { description, ...extra, content: { "application/json": { schema: ref(schemaId) } } };
}

/** A JSON request body of a component schema. */
export function jsonRequestBody(schemaId: string, required: boolean): JsonObject {
  return { required, content: { "application/json": { schema: ref(schemaId) } } };
}

/** The shared error responses (components/responses/ErrorNNN) by status. */
export function errorResponses(...statuses: string[]): JsonObject {
  return Object.fromEntries(statuses.map((status) => [status, { $ref: `#/components/responses/Error${status}` }]));
}
