import type { ModelCapabilities } from "@gateway/redis-store";
import { capabilityDrops as dropsByFields, type CapabilityDrop, type CapabilityFields } from "../core/capabilities.ts";
import { capabilityFields as messagesFields } from "../shapes/anthropic-messages/capabilities.ts";
import { capabilityFields as chatFields } from "../shapes/openai-chat/capabilities.ts";
import { capabilityFields as responsesFields } from "../shapes/openai-responses/capabilities.ts";
import type { EndpointName } from "../core/wire-format.ts";

export { withoutCapabilityFields, type CapabilityDrop } from "../core/capabilities.ts";

/**
 * A Gemini client's settings sit inside `generationConfig` (Gemini CLI sends temperature, topP and
 * topK); a thinking budget of 0 asks for no thinking. Declared here until shapes/gemini/ has its own.
 */
const geminiFields: CapabilityFields = {
  reasoning: [{ parent: "generationConfig", member: "thinkingConfig", silent: (value: unknown) => (value as { thinkingBudget?: unknown } | null)?.thinkingBudget === 0 }],
  sampling: [{ parent: "generationConfig", member: "temperature" }, { parent: "generationConfig", member: "topP" }, { parent: "generationConfig", member: "topK" }],
};

/** Where each endpoint's body says what capabilities govern; null: nothing they govern (images, embeddings). */
const FIELDS: Record<EndpointName, CapabilityFields | null> = {
  "chat.completions": chatFields,
  messages: messagesFields,
  "messages.count_tokens": messagesFields,
  responses: responsesFields,
  "gemini.generate_content": geminiFields,
  "gemini.count_tokens": geminiFields,
  "images.generations": null,
  embeddings: null,
  "gemini.embed_content": null,
};

/**
 * The fields of the client's body its model does not take (contract section 15), reasoning first,
 * then sampling; empty for the common request (a few property reads: no copy, no JSON work). The
 * rule is core/capabilities.ts; where each shape says its settings, `shapes/<shape>/capabilities.ts`.
 */
export function capabilityDrops(body: Record<string, unknown>, endpoint: EndpointName, capabilities: ModelCapabilities): readonly CapabilityDrop[] {
  return dropsByFields(body, FIELDS[endpoint], capabilities);
}
