import { describe, expect, it } from "vitest";
import { parseInput } from "./parse-input.ts";
import { requestLogQuerySchema, toInstant, usageReportQuerySchema } from "./report-schemas.ts";

describe("report query schemas", () => {
  it("reads a date-time with an offset, or a date as its UTC midnight", () => {
    expect(parseInput(usageReportQuerySchema, { from: "2026-11-23", to: "2026-11-24T01:30:00+02:00" }, "query")).toEqual({
      from: new Date("2026-11-23T00:00:00Z"),
      to: new Date("2026-11-23T23:30:00Z"),
      group_by: "day",
    });
  });

  it("rounds digits beyond the millisecond up, so the window stays exact on the ledger's milliseconds", () => {
    expect(toInstant("2026-11-23T10:00:00.1234Z")).toEqual(new Date("2026-11-23T10:00:00.124Z"));
    expect(toInstant("2026-11-23T10:00:00.123000Z")).toEqual(new Date("2026-11-23T10:00:00.123Z"));
    expect(toInstant("2026-11-23T10:00:00Z")).toEqual(new Date("2026-11-23T10:00:00Z"));
  });

  it("400 naming the parameter for dates that are not dates", () => {
    const bad = ["yesterday", "2026-13-45", "2026-02-30", "2026-02-29T00:00:00Z", "99999-01-01", "+099999-01-01T00:00:00Z", "0000-01-01", "2026-11-23T10:00:00", "2026-11-23T24:00:00Z", ""];
    for (const value of bad) {
      for (const param of ["from", "to"]) {
        expect(() => parseInput(usageReportQuerySchema, { [param]: value }, "query"), `${param}=${value}`).toThrow(expect.objectContaining({ status: 400, param }));
      }
    }
    expect(() => parseInput(usageReportQuerySchema, { from: ["2026-11-01", "2026-11-02"] }, "query")).toThrow(expect.objectContaining({ param: "from" }));
  });

  it("400 for an unknown group or status, and filters with control characters", () => {
    expect(() => parseInput(usageReportQuerySchema, { group_by: "week" }, "query")).toThrow(expect.objectContaining({ status: 400, param: "group_by" }));
    expect(() => parseInput(requestLogQuerySchema, { status: "failed" }, "query")).toThrow(expect.objectContaining({ status: 400, param: "status" }));
    expect(() => parseInput(requestLogQuerySchema, { key_id: "key_\u0000" }, "query")).toThrow(expect.objectContaining({ status: 400, param: "key_id" }));
    expect(() => parseInput(requestLogQuerySchema, { model: "x".repeat(201) }, "query")).toThrow(expect.objectContaining({ status: 400, param: "model" }));
    expect(parseInput(requestLogQuerySchema, { key_id: "key_whatever", status: "client_aborted", limit: "5" }, "query")).toEqual({ key_id: "key_whatever", status: "client_aborted", limit: 5 });
  });
});
