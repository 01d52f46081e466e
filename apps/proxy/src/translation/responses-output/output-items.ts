// Moved to shapes/openai-responses/writer/output-items.ts (neutral-core step 3).
export * from "../../shapes/openai-responses/writer/output-items.ts";
