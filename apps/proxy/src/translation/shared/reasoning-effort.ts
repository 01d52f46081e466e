// Moved to core/reasoning.ts (neutral-core step 6).
export * from "../../core/reasoning.ts";
