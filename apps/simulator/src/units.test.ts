/** Pure helpers: directives, deterministic words, schema-built arguments, env parsing. */
import { describe, expect, it } from 'vitest';
import { parseDirectives } from './directives.ts';
import { parseEnv } from './env.ts';
import { makePlan, type GenInput } from './plan.ts';
import { generateWords, splitPieces, toPieces } from './text-generator.ts';
import { argumentsFor } from './tool-args.ts';


const NO_PARTS = { cached: 0, cacheWrite: 0, cacheWrite1h: 0, webSearch: 0, reasoning: 0 };
describe('directives', () => {
  it('parses every directive and ignores junk', () => {
    expect(parseDirectives('hi #sim:chunks=50 #sim:chunk_delay_ms=20 #sim:latency_ms=5 #sim:fail=503 #sim:reset #sim:cut_after=3 #sim:hang #sim:cached=10 #sim:retry_after=2')).toEqual({
      chunks: 50, chunkDelayMs: 20, latencyMs: 5, failStatus: 503, reset: true, cutAfter: 3, hang: true, cached: 10, retryAfter: 2,
    });
    expect(parseDirectives('plain text')).toBeNull();
    expect(parseDirectives('#sim:bogus=1 #sim:fail=200')).toBeNull();
  });
});

describe('text generator', () => {
  it('is deterministic per seed', () => {
    expect(generateWords('a', 12)).toEqual(generateWords('a', 12));
    expect(generateWords('a', 12)).not.toEqual(generateWords('b', 12));
    expect(toPieces(['x', 'y', 'z'])).toEqual(['x', ' y', ' z']);
  });

  it('splits into at least two pieces', () => {
    expect(splitPieces('{}')).toEqual(['{', '}']);
    const text = '{"city":"test","days":1,"metric":true}';
    const pieces = splitPieces(text);
    expect(pieces.length).toBeGreaterThanOrEqual(2);
    expect(pieces.join('')).toBe(text);
  });
});

describe('tool arguments', () => {
  it('fills required properties by type', () => {
    expect(
      argumentsFor({
        type: 'object',
        properties: {
          s: { type: 'string' }, n: { type: 'number' }, i: { type: 'integer' }, b: { type: 'boolean' },
          e: { type: 'string', enum: ['c', 'f'] }, o: { type: 'object', properties: { x: { type: 'string' } }, required: ['x'] },
          a: { type: 'array', items: { type: 'string' } }, opt: { type: 'string' },
        },
        required: ['s', 'n', 'i', 'b', 'e', 'o', 'a'],
      }),
    ).toEqual({ s: 'test', n: 1, i: 1, b: true, e: 'c', o: { x: 'test' }, a: [] });
    expect(argumentsFor(undefined)).toEqual({});
  });
});

describe('plan', () => {
  const input: GenInput = {
    model: 'm', stream: false, lastUserText: 'seed', inputChars: 9, maxTokens: null, stop: [],
    tools: [], toolChoice: { mode: 'auto' }, lastIsToolResult: false,
  };
  it('counts tokens and clamps cached to the input', () => {
    const plan = makePlan(input, 5, NO_PARTS);
    expect(plan).toMatchObject({ inputTokens: 3, outputTokens: 5, finish: 'stop' });
    expect(makePlan(input, 5, { ...NO_PARTS, cached: 10 })).toMatchObject({ inputTokens: 10, cachedTokens: 10 });
    expect(makePlan({ ...input, maxTokens: 5 }, 5, NO_PARTS).finish).toBe('stop');
    expect(makePlan({ ...input, maxTokens: 4 }, 5, NO_PARTS)).toMatchObject({ finish: 'length', outputTokens: 4 });
  });
});

describe('env', () => {
  it('applies defaults and names bad variables', () => {
    expect(parseEnv({})).toEqual({
      ok: true,
      env: { SIMULATOR_PORT: 4010, SIMULATOR_HOST: '127.0.0.1', SIMULATOR_LATENCY_MS: 0, SIMULATOR_CHUNK_DELAY_MS: 0, SIMULATOR_CHUNKS: 12, SIMULATOR_STRICT: false },
    });
    for (const [value, strict] of [['1', true], ['true', true], ['0', false], ['false', false], ['', false]] as const) {
      expect(parseEnv({ SIMULATOR_STRICT: value })).toMatchObject({ ok: true, env: { SIMULATOR_STRICT: strict } });
    }
    expect(parseEnv({ SIMULATOR_STRICT: 'yes please' }).ok).toBe(false);
    const bad = parseEnv({ SIMULATOR_PORT: '70000' });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.message).toContain('SIMULATOR_PORT');
  });
});
