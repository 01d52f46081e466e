// Moved to each shape's usage.ts (neutral-core steps 3 and 4); this path stays until the direction folders go.
export { anthropicUsage, anthropicUsageBody } from "../../shapes/anthropic-messages/usage.ts";
export { chatUsageBody } from "../../shapes/openai-chat/usage.ts";
export { responsesUsageBody } from "../../shapes/openai-responses/usage.ts";
