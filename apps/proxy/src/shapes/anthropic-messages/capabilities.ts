import { TOP_LEVEL_SAMPLING, type CapabilityFields } from "../../core/capabilities.ts";
import { asRecord } from "../../core/request-fields.ts";

/** Where a Messages request (and a token count) says what capabilities govern (core/capabilities.ts). `thinking: {type: disabled}` asks for none: removed unlisted. */
export const capabilityFields: CapabilityFields = {
  reasoning: [{ top: "thinking", silent: (value: unknown) => asRecord(value)?.type === "disabled" }, { parent: "output_config", member: "effort" }],
  sampling: TOP_LEVEL_SAMPLING,
};
