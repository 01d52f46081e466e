// Moved to core/custom-tools.ts (neutral-core step 2); this path stays until the direction folders go.
export * from "../../core/custom-tools.ts";
