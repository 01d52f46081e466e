import { asRecord } from "./request-fields.ts";

/** Both providers nest the message at `error.message` (OpenAI without, Anthropic with `type`). */
export function providerErrorMessage(body: unknown): string | null {
  const message = asRecord(asRecord(body)?.error)?.message;
  return typeof message === "string" ? message : null;
}
