// Moved to core/fields.ts (neutral-core step 2); this path stays until the direction folders go.
export * from "../../core/fields.ts";
