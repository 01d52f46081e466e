// A worker thread of the token counter pool (token-counter-pool.ts): counts one Chat Completions
// body at a time, off the proxy's event loop and heap, so neither the tokenizer's CPU nor the
// garbage collections its allocations cause ever pause the requests the process is serving.
import { parentPort } from "node:worker_threads";
import { countChatTokens } from "./count-tokens.ts";
import type { CountJob, CountResult } from "./token-counter-pool.ts";

parentPort!.on("message", (job: CountJob) => {
  countChatTokens(job.body, job.encoding).then(
    (tokens) => parentPort!.postMessage({ id: job.id, tokens } satisfies CountResult),
    (error: unknown) => parentPort!.postMessage({ id: job.id, error: error instanceof Error ? error.message : String(error) } satisfies CountResult),
  );
});
