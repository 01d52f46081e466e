import { Worker } from "node:worker_threads";
import { GatewayError } from "@gateway/contracts";
import type { EncodingName } from "./count-tokens.ts";

export interface CountJob {
  id: number;
  body: Record<string, unknown>;
  encoding: EncodingName;
}

export type CountResult = { id: number; tokens: number } | { id: number; error: string };

interface Pending {
  job: CountJob;
  resolve(tokens: number): void;
  reject(error: Error): void;
}

/**
 * The worker's module: the sources' `.ts` under Node's type stripping (tests, `node src/main.ts`),
 * the bundle's own entry beside main.mjs in production (scripts/build.ts builds both).
 */
const WORKER_URL = new URL(import.meta.url.endsWith(".ts") ? "./count-tokens-worker.ts" : "./count-tokens-worker.mjs", import.meta.url);

/**
 * Local token counting (`/v1/messages/count_tokens` on an OpenAI-shape model) in worker threads:
 * a huge body costs a worker seconds of CPU, never the event loop a millisecond of it (contract
 * section 14). Threads start on first use (most processes never count) and are replaced when one
 * dies; jobs wait in order, and past `maxQueued` waiting a count is refused (503) rather than
 * holding bodies in memory without bound.
 */
export class TokenCounterPool {
  private readonly idle: Worker[] = [];
  private readonly busy = new Map<Worker, Pending>();
  private readonly queue: Pending[] = [];
  private readonly size: number;
  private readonly maxQueued: number;
  private nextId = 0;
  private closed = false;

  constructor(options: { threads: number; maxQueued: number }) {
    this.size = options.threads;
    this.maxQueued = options.maxQueued;
  }

  /** Input tokens of a Chat Completions body (tokens/count-tokens.ts), counted on a worker thread. */
  count(body: Record<string, unknown>, encoding: EncodingName): Promise<number> {
    if (this.closed) return Promise.reject(new GatewayError("dependency_unavailable", "The proxy is shutting down.", { retryAfter: 1 }));
    if (this.queue.length >= this.maxQueued) {
      return Promise.reject(new GatewayError("dependency_unavailable", "Token counting is busy; try again shortly.", { retryAfter: 1 }));
    }
    return new Promise((resolve, reject) => {
      this.nextId += 1;
      this.queue.push({ job: { id: this.nextId, body, encoding }, resolve, reject });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const pending of this.queue.splice(0)) pending.reject(new Error("token counter closed"));
    const workers = [...this.idle.splice(0), ...this.busy.keys()];
    await Promise.all(workers.map((worker) => worker.terminate()));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const worker = this.idle.pop() ?? (this.busy.size < this.size ? this.spawn() : null);
      if (!worker) return;
      const pending = this.queue.shift()!;
      this.busy.set(worker, pending);
      worker.ref();
      worker.postMessage(pending.job);
    }
  }

  private spawn(): Worker {
    const worker = new Worker(WORKER_URL);
    worker.on("message", (result: CountResult) => {
      const pending = this.busy.get(worker);
      if (!pending || pending.job.id !== result.id) return;
      this.busy.delete(worker);
      this.idle.push(worker);
      // An idle thread does not keep the process alive.
      worker.unref();
      if ("tokens" in result) pending.resolve(result.tokens);
      else pending.reject(new Error(`token count failed: ${result.error}`));
      this.dispatch();
    });
    // A thread that died (out of memory, a bug) fails its job only; the next job starts a new one.
    const fail = (error: Error) => {
      const pending = this.busy.get(worker);
      this.busy.delete(worker);
      const index = this.idle.indexOf(worker);
      if (index !== -1) this.idle.splice(index, 1);
      pending?.reject(error);
      if (!this.closed) this.dispatch();
    };
    worker.on("error", fail);
    worker.on("exit", (code) => fail(new Error(`token counter thread exited with code ${code}`)));
    return worker;
  }
}
