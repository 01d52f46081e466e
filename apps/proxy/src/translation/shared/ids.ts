// Moved to core/ids.ts (neutral-core step 2); this path stays until the direction folders go.
export * from "../../core/ids.ts";
