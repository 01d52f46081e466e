import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { maskIdentifiers } from "./mask-identifiers.ts";

const alnum = fc.stringMatching(/^[A-Za-z0-9]{3,40}$/);
const hex = (min: number, max: number) => fc.stringMatching(new RegExp(`^[0-9a-f]{${min},${max}}$`));
/** Every kind of identifier an upstream's message may carry. */
const identifier = fc.oneof(
  alnum.map((id) => `org-${id}`),
  alnum.map((id) => `sk-${id}`),
  alnum.map((id) => `sk-proj-${id}`),
  alnum.map((id) => `sk-ant-api03-${id}`),
  alnum.map((id) => `acct_${id}`),
  alnum.map((id) => `proj_${id}`),
  alnum.map((id) => `org_${id}`),
  fc.uuid(),
  hex(16, 48),
);
/** Text with nothing identifier-like in it: letters past `f` (no hex run), spaces, punctuation. */
const plain = fc.stringMatching(/^[g-zG-Z .,:;'()!?]{0,60}$/);

describe("maskIdentifiers", () => {
  it("leaves no identifier in a message, wherever it stands", () => {
    fc.assert(
      fc.property(plain, identifier, plain, identifier, (before, first, after, second) => {
        const masked = maskIdentifiers(`${before} ${first}: ${after} (${second})`);
        expect(masked).not.toContain(first);
        expect(masked).not.toContain(second);
        expect(masked).toContain(before.trim());
        expect(masked).toContain(after.trim());
      }),
    );
  });

  it("changes nothing in a message without identifiers, and masking twice is masking once", () => {
    fc.assert(
      fc.property(plain, (text) => {
        expect(maskIdentifiers(text)).toBe(text);
      }),
    );
    fc.assert(
      fc.property(plain, identifier, (text, id) => {
        const once = maskIdentifiers(`${text} ${id}`);
        expect(maskIdentifiers(once)).toBe(once);
      }),
    );
  });

  it("keeps each identifier's kind and the words around it", () => {
    expect(maskIdentifiers("Project proj_Ab12Cd34 in org-XyZ987abc is over its limit; key sk-proj-abc123DEF was used")).toBe(
      "Project proj_*** in org-*** is over its limit; key sk-*** was used",
    );
    expect(maskIdentifiers("account acct_1Nv0FGQ9RKHgCVdK and 3f2b8c1e-9a7d-4e21-b5c3-0d8e6f4a2b19 / 00c0ffee00c0ffee00c0ffee")).toBe("account acct_*** and *** / ***");
    expect(maskIdentifiers("max_tokens: 100000 > 8192, see the task-force notes")).toBe("max_tokens: 100000 > 8192, see the task-force notes");
  });
});
