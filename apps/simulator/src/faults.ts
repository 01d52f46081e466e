/** Queue of faults: each entry applies to the next `times` matching requests, then is removed. */
import { z } from 'zod';
import type { Behaviour } from './types.ts';

const count = z.number().int().min(0);
const ms = z.number().int().min(0).max(3_600_000);
const status = z.number().int().min(400).max(599);

/** Behaviour fields, camelCase (snake_case aliases are accepted by the control endpoint). */
export const behaviourSchema = z
  .object({
    latencyMs: ms,
    chunks: count.max(100_000),
    chunkDelayMs: ms,
    failStatus: status.nullable(),
    failMessage: z.string().max(10_000).nullable(),
    reset: z.boolean(),
    cutAfter: count.nullable(),
    hang: z.boolean(),
    cached: count,
    cacheWrite: count,
    cacheWrite1h: count,
    webSearch: count,
    reasoning: count,
    retryAfter: count.nullable(),
  })
  .partial()
  .strict();

const SNAKE: Record<string, string> = {
  latency_ms: 'latencyMs',
  chunk_delay_ms: 'chunkDelayMs',
  fail_status: 'failStatus',
  fail: 'failStatus',
  fail_message: 'failMessage',
  cut_after: 'cutAfter',
  retry_after: 'retryAfter',
  cache_write: 'cacheWrite',
  cache_write_1h: 'cacheWrite1h',
  web_search: 'webSearch',
};

function camelize(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) out[SNAKE[key] ?? key] = v;
  return out;
}

export const faultSchema = z.object({
  match: z
    .object({ model: z.string().optional(), path: z.string().optional(), stream: z.boolean().optional() })
    .strict()
    .default({}),
  times: z.number().int().min(1).default(1),
  behaviour: z.preprocess(camelize, behaviourSchema),
});

export const faultsBodySchema = z.object({ faults: z.array(faultSchema) }).strict();

export type FaultMatch = { model?: string | undefined; path?: string | undefined; stream?: boolean | undefined };

export interface FaultInput {
  match?: FaultMatch;
  times?: number;
  behaviour: Partial<Behaviour>;
}

export interface Fault {
  match: FaultMatch;
  remaining: number;
  behaviour: Partial<Behaviour>;
}

export interface FaultTarget {
  path: string;
  model: string | null;
  stream: boolean;
  /** Only faults whose match names this exact path apply (used for non-generating routes like /v1/models). */
  explicitPathOnly?: boolean;
}

export class FaultQueue {
  readonly entries: Fault[] = [];

  push(...faults: FaultInput[]): void {
    for (const fault of faults) {
      const parsed = faultSchema.parse(fault);
      this.entries.push({ match: parsed.match, remaining: parsed.times, behaviour: parsed.behaviour });
    }
  }

  clear(): void {
    this.entries.length = 0;
  }

  get size(): number {
    return this.entries.length;
  }

  /** Consume one use of the first entry matching `target`; its behaviour, or null. */
  take(target: FaultTarget): Partial<Behaviour> | null {
    if (this.entries.length === 0) return null;
    const index = this.entries.findIndex((fault) => matches(fault.match, target));
    if (index < 0) return null;
    const fault = this.entries[index] as Fault;
    fault.remaining -= 1;
    if (fault.remaining <= 0) this.entries.splice(index, 1);
    return fault.behaviour;
  }
}

function matches(match: FaultMatch, target: FaultTarget): boolean {
  if (target.explicitPathOnly && match.path === undefined) return false;
  if (match.model !== undefined && match.model !== target.model) return false;
  if (match.path !== undefined && match.path !== target.path) return false;
  if (match.stream !== undefined && match.stream !== target.stream) return false;
  return true;
}
