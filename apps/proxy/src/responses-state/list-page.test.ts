import { describe, expect, it } from "vitest";
import { listPage } from "./list-page.ts";

const items = ["a", "b", "c", "d", "e"].map((id) => ({ id }));
const page = (query: string) => listPage(items, new URLSearchParams(query));

describe("listPage: OpenAI's cursor pages", () => {
  it("newest first by default, 20 at most, with first_id, last_id and has_more", () => {
    expect(page("")).toEqual({ object: "list", data: [...items].reverse(), first_id: "e", last_id: "a", has_more: false });
    expect(page("limit=2")).toMatchObject({ data: [{ id: "e" }, { id: "d" }], first_id: "e", last_id: "d", has_more: true });
  });

  it("asc, and after a cursor in the chosen order; the last page says has_more false; an empty page has null ids", () => {
    expect(page("order=asc&limit=2&after=b")).toMatchObject({ data: [{ id: "c" }, { id: "d" }], has_more: true });
    expect(page("order=asc&limit=2&after=d")).toMatchObject({ data: [{ id: "e" }], has_more: false });
    expect(page("limit=2&after=b")).toMatchObject({ data: [{ id: "a" }], has_more: false });
    expect(page("order=asc&after=e")).toEqual({ object: "list", data: [], first_id: null, last_id: null, has_more: false });
  });

  it.each(["limit=0", "limit=101", "limit=1.5", "limit=x", "order=up", "after=nope"])("%s is the 400 naming its parameter", (query) => {
    expect(() => page(query)).toThrow(expect.objectContaining({ status: 400, param: query.split("=")[0] }));
  });
});
