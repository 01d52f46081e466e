import { describe, expect, it } from "vitest";
import { planWindow } from "./report-window.ts";

const at = (text: string) => new Date(text);
const part = (from: string, to: string, day: string) => ({ from: at(from), to: at(to), day });

describe("planWindow", () => {
  it("reads a window aligned to midnight from the aggregates alone", () => {
    expect(planWindow(at("2026-11-01T00:00:00Z"), at("2026-11-04T00:00:00Z"))).toEqual({ wholeDays: { from: "2026-11-01", to: "2026-11-04" }, partialDays: [] });
  });

  it("reads the partial days at both edges from the ledger", () => {
    expect(planWindow(at("2026-11-01T10:00:00Z"), at("2026-11-04T08:30:00.123Z"))).toEqual({
      wholeDays: { from: "2026-11-02", to: "2026-11-04" },
      partialDays: [part("2026-11-01T10:00:00Z", "2026-11-02T00:00:00Z", "2026-11-01"), part("2026-11-04T00:00:00Z", "2026-11-04T08:30:00.123Z", "2026-11-04")],
    });
    expect(planWindow(at("2026-11-01T00:00:00Z"), at("2026-11-03T00:00:00.001Z"))).toEqual({
      wholeDays: { from: "2026-11-01", to: "2026-11-03" },
      partialDays: [part("2026-11-03T00:00:00Z", "2026-11-03T00:00:00.001Z", "2026-11-03")],
    });
  });

  it("splits a window without a whole day at its midnight, each part inside one day", () => {
    expect(planWindow(at("2026-11-01T18:00:00Z"), at("2026-11-02T06:00:00Z"))).toEqual({
      wholeDays: null,
      partialDays: [part("2026-11-01T18:00:00Z", "2026-11-02T00:00:00Z", "2026-11-01"), part("2026-11-02T00:00:00Z", "2026-11-02T06:00:00Z", "2026-11-02")],
    });
    expect(planWindow(at("2026-11-01T18:00:00Z"), at("2026-11-02T00:00:00Z"))).toEqual({ wholeDays: null, partialDays: [part("2026-11-01T18:00:00Z", "2026-11-02T00:00:00Z", "2026-11-01")] });
    expect(planWindow(at("2026-11-02T00:00:00Z"), at("2026-11-02T06:00:00Z"))).toEqual({ wholeDays: null, partialDays: [part("2026-11-02T00:00:00Z", "2026-11-02T06:00:00Z", "2026-11-02")] });
    expect(planWindow(at("2026-11-02T01:00:00Z"), at("2026-11-02T06:00:00Z"))).toEqual({ wholeDays: null, partialDays: [part("2026-11-02T01:00:00Z", "2026-11-02T06:00:00Z", "2026-11-02")] });
  });

  it("a day plus a moment on either side", () => {
    expect(planWindow(at("2026-11-01T23:59:59.999Z"), at("2026-11-03T00:00:00.001Z"))).toEqual({
      wholeDays: { from: "2026-11-02", to: "2026-11-03" },
      partialDays: [part("2026-11-01T23:59:59.999Z", "2026-11-02T00:00:00Z", "2026-11-01"), part("2026-11-03T00:00:00Z", "2026-11-03T00:00:00.001Z", "2026-11-03")],
    });
  });

  it("an empty or reversed window reads nothing", () => {
    expect(planWindow(at("2026-11-01T10:00:00Z"), at("2026-11-01T10:00:00Z"))).toEqual({ wholeDays: null, partialDays: [] });
    expect(planWindow(at("2026-11-02T00:00:00Z"), at("2026-11-01T00:00:00Z"))).toEqual({ wholeDays: null, partialDays: [] });
  });

  it("works before 1970 too", () => {
    expect(planWindow(at("1969-12-30T12:00:00Z"), at("1970-01-01T06:00:00Z"))).toEqual({
      wholeDays: { from: "1969-12-31", to: "1970-01-01" },
      partialDays: [part("1969-12-30T12:00:00Z", "1969-12-31T00:00:00Z", "1969-12-30"), part("1970-01-01T00:00:00Z", "1970-01-01T06:00:00Z", "1970-01-01")],
    });
  });
});
