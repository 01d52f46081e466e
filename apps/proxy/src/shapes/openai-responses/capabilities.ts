import { TOP_LEVEL_SAMPLING, type CapabilityFields } from "../../core/capabilities.ts";

/**
 * Where a Responses request says what capabilities govern (core/capabilities.ts): every `reasoning`
 * member (`effort: none` asks for none: unlisted), and encrypted reasoning to carry to the next
 * turn (`include[i]`), which a model that does not reason has none of.
 */
export const capabilityFields: CapabilityFields = {
  reasoning: [{ members: "reasoning", silent: (member: string, value: unknown) => member === "effort" && value === "none" }, { array: "include", value: "reasoning.encrypted_content" }],
  sampling: TOP_LEVEL_SAMPLING,
};
