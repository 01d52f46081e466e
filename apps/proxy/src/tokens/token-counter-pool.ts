import { Worker } from "node:worker_threads";
import { GatewayError } from "@gateway/contracts";
import type { EncodingName } from "./count-tokens.ts";

export type CountJob = { id: number; kind: "chat"; body: Record<string, unknown>; encoding: EncodingName } | { id: number; kind: "text"; text: string; encoding: EncodingName };

/** Counts a plain text's tokens off the event loop (what relay/output-meter.ts needs of the pool). */
export interface TextTokenCounter {
  countText(text: string, encoding: EncodingName): Promise<number>;
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

/** How long a thread with nothing to count lives on by default (its ranks hold ~55 MB). */
const IDLE_MS = 30_000;

/**
 * Local token counting (`/v1/messages/count_tokens` on an OpenAI-shape model, and the exact output
 * count of a stream billed by estimate) in worker threads: a huge body costs a worker seconds of
 * CPU, never the event loop a millisecond of it (contract section 14), and the tokenizer's ranks
 * (~55 MB per encoding) live in the worker's heap, never the main thread's. Threads start on first
 * use (most processes never count), end after `idleMs` with nothing to count (so a process that
 * needed one estimate does not keep the ranks for good; the next job starts a thread again), and are
 * replaced when one dies; jobs wait in order, and past `maxQueued` waiting a count is refused (503)
 * rather than holding bodies in memory without bound.
 */
export class TokenCounterPool implements TextTokenCounter {
  private readonly idle: Worker[] = [];
  private readonly busy = new Map<Worker, Pending>();
  private readonly queue: Pending[] = [];
  /** The timer that ends each idle thread. */
  private readonly idleTimers = new Map<Worker, NodeJS.Timeout>();
  private readonly size: number;
  private readonly maxQueued: number;
  private readonly idleMs: number;
  private nextId = 0;
  private alive = 0;
  private closed = false;

  constructor(options: { threads: number; maxQueued: number; idleMs?: number }) {
    this.size = options.threads;
    this.maxQueued = options.maxQueued;
    this.idleMs = options.idleMs ?? IDLE_MS;
  }

  /** Threads started and not yet exited (an idle one that was ended counts until it has exited). */
  get threads(): number {
    return this.alive;
  }

  /** Input tokens of a Chat Completions body (tokens/count-tokens.ts), counted on a worker thread. */
  count(body: Record<string, unknown>, encoding: EncodingName): Promise<number> {
    return this.run((id) => ({ id, kind: "chat", body, encoding }));
  }

  /** Tokens of a plain text (tokens/count-tokens.ts `countTextTokens`), counted on a worker thread. */
  countText(text: string, encoding: EncodingName): Promise<number> {
    return this.run((id) => ({ id, kind: "text", text, encoding }));
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const pending of this.queue.splice(0)) pending.reject(new Error("token counter closed"));
    for (const timer of this.idleTimers.values()) clearTimeout(timer);
    this.idleTimers.clear();
    const workers = [...this.idle.splice(0), ...this.busy.keys()];
    await Promise.all(workers.map((worker) => worker.terminate()));
  }

  private run(job: (id: number) => CountJob): Promise<number> {
    if (this.closed) return Promise.reject(new GatewayError("dependency_unavailable", "The proxy is shutting down.", { retryAfter: 1 }));
    if (this.queue.length >= this.maxQueued) {
      return Promise.reject(new GatewayError("dependency_unavailable", "Token counting is busy; try again shortly.", { retryAfter: 1 }));
    }
    return new Promise((resolve, reject) => {
      this.nextId += 1;
      this.queue.push({ job: job(this.nextId), resolve, reject });
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const worker = this.idle.pop() ?? (this.busy.size < this.size ? this.spawn() : null);
      if (!worker) return;
      const timer = this.idleTimers.get(worker);
      if (timer !== undefined) {
        clearTimeout(timer);
        this.idleTimers.delete(worker);
      }
      const pending = this.queue.shift()!;
      this.busy.set(worker, pending);
      worker.ref();
      worker.postMessage(pending.job);
    }
  }

  /** An idle thread ends after `idleMs` unless a job takes it first. */
  private idleFor(worker: Worker): void {
    const timer = setTimeout(() => {
      this.idleTimers.delete(worker);
      const index = this.idle.indexOf(worker);
      if (index === -1) return;
      this.idle.splice(index, 1);
      void worker.terminate();
    }, this.idleMs);
    timer.unref();
    this.idleTimers.set(worker, timer);
  }

  private spawn(): Worker {
    const worker = new Worker(WORKER_URL);
    this.alive += 1;
    worker.on("message", (result: CountResult) => {
      const pending = this.busy.get(worker);
      if (!pending || pending.job.id !== result.id) return;
      this.busy.delete(worker);
      this.idle.push(worker);
      // An idle thread does not keep the process alive.
      worker.unref();
      this.idleFor(worker);
      if ("tokens" in result) pending.resolve(result.tokens);
      else pending.reject(new Error(`token count failed: ${result.error}`));
      this.dispatch();
    });
    // A thread that died (out of memory, a bug) fails its job only; the next job starts a new one.
    const fail = (error: Error) => {
      const timer = this.idleTimers.get(worker);
      if (timer !== undefined) clearTimeout(timer);
      this.idleTimers.delete(worker);
      const pending = this.busy.get(worker);
      this.busy.delete(worker);
      const index = this.idle.indexOf(worker);
      if (index !== -1) this.idle.splice(index, 1);
      pending?.reject(error);
      if (!this.closed) this.dispatch();
    };
    worker.on("error", fail);
    worker.on("exit", (code) => {
      this.alive -= 1;
      fail(new Error(`token counter thread exited with code ${code}`));
    });
    return worker;
  }
}
