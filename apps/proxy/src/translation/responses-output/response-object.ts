// Moved to shapes/openai-responses/writer/response-object.ts (neutral-core step 3).
export * from "../../shapes/openai-responses/writer/response-object.ts";
