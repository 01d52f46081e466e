import { GatewayError } from "@gateway/contracts";
import type { z } from "zod";

/**
 * Validates a body or query with its schema; the first problem becomes the contract's 400 with
 * `param` naming the field (`rate_limits.rpm`) and a message that starts with it.
 */
export function parseInput<Schema extends z.ZodType>(schema: Schema, value: unknown, what: "body" | "query"): z.output<Schema> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  if (issue.code === "unrecognized_keys") {
    const param = [...issue.path, issue.keys[0]!].map(String).join(".");
    throw new GatewayError("invalid_body", `${param}: unknown field`, { param });
  }
  const param = issue.path.length > 0 ? issue.path.map(String).join(".") : null;
  const missing = param !== null && issue.code === "invalid_type" && valueAt(value, issue.path) === undefined;
  const message = missing ? "required" : issue.message;
  throw new GatewayError("invalid_body", `${param ?? what}: ${message}`, { param });
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let current = value;
  for (const part of path) {
    if (typeof current !== "object" || current === null) return undefined;
    current = (current as Record<PropertyKey, unknown>)[part];
  }
  return current;
}
