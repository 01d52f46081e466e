/** Deterministic tool-call arguments built from a JSON schema's required properties. */

type Schema = Record<string, unknown>;

function isObject(value: unknown): value is Schema {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function firstType(schema: Schema): string | undefined {
  const type = schema['type'];
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) return type.find((t): t is string => typeof t === 'string' && t !== 'null');
  if (isObject(schema['properties'])) return 'object';
  return undefined;
}

/** A value for `schema`: "test" for strings (or the first enum value), 1 for numbers, true for booleans. */
export function valueFor(schema: unknown, depth = 0): unknown {
  if (!isObject(schema)) return 'test';
  const enumValues = schema['enum'];
  if (Array.isArray(enumValues) && enumValues.length > 0) return enumValues[0];
  if ('const' in schema) return schema['const'];
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    const options = schema[key];
    if (Array.isArray(options) && options.length > 0) return valueFor(options[0], depth + 1);
  }
  switch (firstType(schema)) {
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'array':
      return [];
    case 'object':
      return depth > 8 ? {} : argumentsFor(schema, depth + 1);
    default:
      return 'test';
  }
}

/** An object holding a value for each required property of `schema` (in `required` order). */
export function argumentsFor(schema: unknown, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!isObject(schema)) return out;
  const properties = isObject(schema['properties']) ? schema['properties'] : {};
  const required = Array.isArray(schema['required']) ? schema['required'] : [];
  for (const name of required) {
    if (typeof name === 'string') out[name] = valueFor(properties[name], depth);
  }
  return out;
}
