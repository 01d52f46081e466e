// A worker thread of the token counter pool (token-counter-pool.ts): counts one Chat Completions
// body (or one plain text: a stream's output, for an estimate) at a time, off the proxy's event loop and heap, so neither the tokenizer's CPU nor the
// garbage collections its allocations cause ever pause the requests the process is serving.
import { setPriority } from "node:os";
import { parentPort } from "node:worker_threads";
import { countChatTokens, countTextTokens } from "./count-tokens.ts";
import type { CountJob, CountResult } from "./token-counter-pool.ts";

// The lowest CPU priority for this thread alone: on Linux a nice value is per thread, and
// setpriority(pid 0) from a thread sets its own. A flood of counts then takes only the CPU the
// process's serving threads (and its neighbours') leave, instead of a core of its own on a busy
// machine. Where the system refuses it (other platforms, limits), counting still works.
try {
  setPriority(19);
} catch {
  // Not fatal: the count still runs off the event loop.
}

parentPort!.on("message", (job: CountJob) => {
  const counted = job.kind === "text" ? countTextTokens(job.text, job.encoding) : countChatTokens(job.body, job.encoding);
  counted.then(
    (tokens) => parentPort!.postMessage({ id: job.id, tokens } satisfies CountResult),
    (error: unknown) => parentPort!.postMessage({ id: job.id, error: error instanceof Error ? error.message : String(error) } satisfies CountResult),
  );
});
