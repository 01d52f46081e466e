import { describe, expect, it } from "vitest";
import { budgetWindow } from "./budget-period.ts";

const at = (iso: string) => Date.parse(iso);
const iso = (window: { start: number; end: number }) => [new Date(window.start).toISOString(), new Date(window.end).toISOString()];

describe("budgetWindow", () => {
  it("days run from UTC midnight to the next", () => {
    expect(iso(budgetWindow("day", at("2026-11-23T23:59:59.999Z")))).toEqual(["2026-11-23T00:00:00.000Z", "2026-11-24T00:00:00.000Z"]);
    expect(iso(budgetWindow("day", at("2026-11-24T00:00:00.000Z")))).toEqual(["2026-11-24T00:00:00.000Z", "2026-11-25T00:00:00.000Z"]);
  });

  it("weeks start on Monday, also when now is a Sunday or a Monday", () => {
    // 2026-11-23 is a Monday.
    expect(iso(budgetWindow("week", at("2026-11-23T00:00:00.000Z")))).toEqual(["2026-11-23T00:00:00.000Z", "2026-11-30T00:00:00.000Z"]);
    expect(iso(budgetWindow("week", at("2026-11-29T23:59:59.000Z")))).toEqual(["2026-11-23T00:00:00.000Z", "2026-11-30T00:00:00.000Z"]);
    expect(iso(budgetWindow("week", at("2026-11-22T12:00:00.000Z")))).toEqual(["2026-11-16T00:00:00.000Z", "2026-11-23T00:00:00.000Z"]);
  });

  it("months follow the calendar, across a year end and in February", () => {
    expect(iso(budgetWindow("month", at("2026-12-31T23:00:00.000Z")))).toEqual(["2026-12-01T00:00:00.000Z", "2027-01-01T00:00:00.000Z"]);
    expect(iso(budgetWindow("month", at("2028-02-29T10:00:00.000Z")))).toEqual(["2028-02-01T00:00:00.000Z", "2028-03-01T00:00:00.000Z"]);
  });
});
