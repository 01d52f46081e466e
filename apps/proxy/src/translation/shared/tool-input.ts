// Moved to core/tool-input.ts (neutral-core step 2); this path stays until the direction folders go.
export * from "../../core/tool-input.ts";
