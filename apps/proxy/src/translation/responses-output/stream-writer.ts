// Moved to shapes/openai-responses/writer/ (neutral-core step 3); this path stays until the direction folders go.
export { ResponsesStreamEvents } from "../../shapes/openai-responses/writer/stream-events.ts";
export { ResponsesStreamWriter } from "../../shapes/openai-responses/writer/stream.ts";
