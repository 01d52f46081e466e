import { describe, expect, it } from "vitest";
import { exceedsJsonDepth } from "./json-depth.ts";

const bytes = (text: string) => Buffer.from(text, "utf8");
const nested = (depth: number) => `${'{"a":'.repeat(depth - 1)}[1]${"}".repeat(depth - 1)}`;

describe("exceedsJsonDepth", () => {
  it("counts objects and arrays, allowing exactly the bound", () => {
    expect(JSON.parse(nested(128))).toBeTruthy();
    expect(exceedsJsonDepth(bytes(nested(128)), 128)).toBe(false);
    expect(exceedsJsonDepth(bytes(nested(129)), 128)).toBe(true);
    expect(exceedsJsonDepth(bytes(`${"[".repeat(200)}${"]".repeat(200)}`), 128)).toBe(true);
  });

  it("ignores brackets inside strings, escaped quotes included", () => {
    const text = JSON.stringify({ text: `${"[{".repeat(500)} \\" "[[[` });
    expect(exceedsJsonDepth(bytes(text), 2)).toBe(false);
    expect(exceedsJsonDepth(bytes(JSON.stringify({ a: "\\", b: [[[]]] })), 3)).toBe(true);
    expect(exceedsJsonDepth(bytes(JSON.stringify({ a: "\\", b: [[[]]] })), 4)).toBe(false);
  });
});
