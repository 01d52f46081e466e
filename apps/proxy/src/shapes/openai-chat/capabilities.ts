import { TOP_LEVEL_SAMPLING, type CapabilityFields } from "../../core/capabilities.ts";

/** Where a chat request says what capabilities govern (core/capabilities.ts). `reasoning_effort: none` asks for no reasoning: removed unlisted. */
export const capabilityFields: CapabilityFields = {
  reasoning: [{ top: "reasoning_effort", silent: (value: unknown) => value === "none" }],
  sampling: TOP_LEVEL_SAMPLING,
};
