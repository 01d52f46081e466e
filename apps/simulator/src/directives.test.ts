/** The directive parsers: tool directives, base64url arguments, and that no text makes them throw. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeToolArgs, encodeToolArgs, parseDirectives, parseToolDirectives } from './directives.ts';

const jsonObject = fc.dictionary(fc.string(), fc.jsonValue()).map((o) => JSON.parse(JSON.stringify(o)) as Record<string, unknown>);
const toolName = fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/);

describe('tool directives', () => {
  it('reads names, arguments and sequences', () => {
    const args = encodeToolArgs({ command: 'ls -la', n: 2 });
    expect(parseToolDirectives(`please #sim:tool=Bash #sim:tool_args=${args}`)).toEqual([{ name: 'Bash', args: { command: 'ls -la', n: 2 } }]);
    expect(parseToolDirectives('#sim:tool=Read then #sim:tool=mcp__fs__write_file')).toEqual([
      { name: 'Read', args: null },
      { name: 'mcp__fs__write_file', args: null },
    ]);
    // Arguments before any tool belong to the first one after them; a trailing sentence dot is not part of the name.
    expect(parseToolDirectives(`#sim:tool_args=${args}. Use #sim:tool=shell.`)).toEqual([{ name: 'shell', args: { command: 'ls -la', n: 2 } }]);
    // The value ends at quotes, brackets, commas and the next directive.
    expect(parseToolDirectives('"#sim:tool=Grep", (#sim:tool=Glob)#sim:chunks=3')).toEqual([
      { name: 'Grep', args: null },
      { name: 'Glob', args: null },
    ]);
    expect(parseToolDirectives('no directives here')).toEqual([]);
    expect(parseToolDirectives('#sim:tool= #sim:tool=a/b #sim:tools=x')).toEqual([]);
  });

  it('ignores arguments that are not a base64url JSON object', () => {
    expect(decodeToolArgs(encodeToolArgs({ a: 1 }))).toEqual({ a: 1 });
    expect(decodeToolArgs(Buffer.from('[1,2]').toString('base64url'))).toBeNull();
    expect(decodeToolArgs(Buffer.from('null').toString('base64url'))).toBeNull();
    expect(decodeToolArgs(Buffer.from('{nope').toString('base64url'))).toBeNull();
    expect(decodeToolArgs('')).toBeNull();
    expect(decodeToolArgs('%%%')).toBeNull();
    // Standard base64 (with + / and padding) is accepted too.
    expect(decodeToolArgs(Buffer.from('{"q":"??>>"}').toString('base64'))).toEqual({ q: '??>>' });
    expect(parseToolDirectives('#sim:tool=x #sim:tool_args=bm9wZQ')).toEqual([{ name: 'x', args: null }]);
  });

  it('tool directives do not count as behaviour directives', () => {
    expect(parseDirectives('#sim:tool=Bash')).toBeNull();
    expect(parseDirectives('#sim:tool=Bash #sim:chunks=4')).toEqual({ chunks: 4 });
  });

  it('never throws, on any text', () => {
    const texts = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.array(fc.oneof(fc.constantFrom('#sim:', 'tool', 'tool_args', '=', ' ', '.', '#', 'chunks', '=12', 'fail=503', '+/', '=='), fc.string()), { maxLength: 30 }).map((parts) => parts.join('')),
    );
    fc.assert(
      fc.property(texts, (text) => {
        const tools = parseToolDirectives(text);
        for (const tool of tools) {
          expect(tool.name).toMatch(/^[A-Za-z0-9_.-]{1,128}$/);
          expect(tool.args === null || (typeof tool.args === 'object' && !Array.isArray(tool.args))).toBe(true);
        }
        parseDirectives(text);
        decodeToolArgs(text);
      }),
      { numRuns: 1000 },
    );
    // 1000 texts take about a second alone; a loaded CI machine is slower than vitest's 5 s default.
  }, 30_000);

  it('round-trips any JSON object through #sim:tool_args, in any surrounding text', () => {
    fc.assert(
      fc.property(toolName, jsonObject, fc.string(), fc.string(), (name, args, before, after) => {
        const text = `${before} #sim:tool=${name} #sim:tool_args=${encodeToolArgs(args)} ${after}`;
        const found = parseToolDirectives(text).find((tool) => tool.name === name && tool.args !== null);
        expect(found?.args).toEqual(args);
      }),
      { numRuns: 500 },
    );
  });

  it('keeps the old numeric directives as they were', () => {
    fc.assert(
      fc.property(fc.nat({ max: 100_000 }), fc.nat({ max: 100_000 }), (chunks, cached) => {
        expect(parseDirectives(`x #sim:chunks=${chunks}, #sim:tool=Bash #sim:cached=${cached}#sim:hang`)).toEqual({ chunks, cached, hang: true });
      }),
    );
  });
});
