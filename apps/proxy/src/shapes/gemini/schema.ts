import { asRecord } from "../../core/request-fields.ts";

/**
 * Google's OpenAPI-subset `Schema` (`parameters`, `responseSchema`, and the `responseJsonSchema`
 * Gemini CLI's router sends with upper-case types) -> JSON Schema: type names lower-cased,
 * `nullable: true` as a `null` type beside the other, nested `properties`, `items`, `anyOf`
 * converted the same way; other keywords kept. Null when it is not an object.
 */
export function jsonSchemaFromGoogle(value: unknown): Record<string, unknown> | null {
  const schema = asRecord(value);
  if (!schema) return null;
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(schema)) {
    switch (key) {
      case "type":
        out.type = typeof member === "string" ? member.toLowerCase() : member;
        break;
      case "nullable":
        break;
      case "properties": {
        const properties: Record<string, unknown> = {};
        for (const [name, inner] of Object.entries(asRecord(member) ?? {})) properties[name] = jsonSchemaFromGoogle(inner) ?? inner;
        out.properties = properties;
        break;
      }
      case "items":
        out.items = jsonSchemaFromGoogle(member) ?? member;
        break;
      case "anyOf":
        out.anyOf = Array.isArray(member) ? member.map((inner) => jsonSchemaFromGoogle(inner) ?? inner) : member;
        break;
      case "propertyOrdering":
        break;
      default:
        out[key] = member;
    }
  }
  if (schema.nullable === true && typeof out.type === "string") out.type = [out.type, "null"];
  return out;
}
