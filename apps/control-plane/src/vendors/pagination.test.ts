import { GatewayError } from "@gateway/contracts";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { decodeCursor, encodeCursor, readPageRequest, toList } from "./pagination.ts";

const position = z.object({ id: z.string() });

describe("pagination", () => {
  it("round-trips a cursor and reads limit with its default", () => {
    expect(decodeCursor(encodeCursor({ id: "key_9" }), position)).toEqual({ id: "key_9" });
    expect(readPageRequest({}, position)).toEqual({ limit: 20, after: undefined });
    expect(readPageRequest({ limit: "100", cursor: encodeCursor({ id: "a" }) }, position)).toEqual({ limit: 100, after: { id: "a" } });
  });

  it("400 naming limit or cursor", () => {
    for (const query of [{ limit: "0" }, { limit: "101" }, { limit: "1.5" }, { limit: ["1", "2"] }]) {
      expect(() => readPageRequest(query, position)).toThrow(expect.objectContaining({ status: 400, param: "limit" }));
    }
    for (const cursor of ["%%", encodeCursor({ name: "x" }), Buffer.from("not json").toString("base64url")]) {
      expect(() => readPageRequest({ cursor }, position)).toThrow(GatewayError);
      expect(() => readPageRequest({ cursor }, position)).toThrow(expect.objectContaining({ param: "cursor" }));
    }
  });

  it("cuts limit + 1 rows into a page with has_more and the next cursor", () => {
    const rows = [{ id: "c" }, { id: "b" }, { id: "a" }];
    expect(toList(rows, 2, (row) => row.id, (row) => ({ id: row.id }))).toEqual({ object: "list", data: ["c", "b"], has_more: true, next_cursor: encodeCursor({ id: "b" }) });
    expect(toList(rows, 3, (row) => row.id, (row) => ({ id: row.id }))).toEqual({ object: "list", data: ["c", "b", "a"], has_more: false, next_cursor: null });
  });
});
