// Moved to core/bookkeeping.ts (neutral-core step 6).
export * from "../../core/bookkeeping.ts";
