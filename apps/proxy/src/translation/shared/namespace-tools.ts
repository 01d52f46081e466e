// Moved to shapes/openai-responses/namespace-tools.ts (namespace tools are a Responses feature); this path stays until the direction folders go.
export * from "../../shapes/openai-responses/namespace-tools.ts";
