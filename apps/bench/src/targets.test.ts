import { describe, expect, it } from "vitest";
import { checkTargets } from "./targets.ts";
import { contentionWarning } from "./report.ts";
import { figures, jsonRow, latency, results } from "./test-fixtures.ts";

describe("checkTargets", () => {
  it("takes the worst row of each target and says met or missed", () => {
    const missed = checkTargets(results([jsonRow(1, figures(5000, latency(0.2, 0.5, 1)), figures(4000, latency(0.6, 2, 3)), { cpu: 400, rssMb: 90 })]));
    expect(missed.find((check) => check.name === "added latency p50, concurrency 1")).toMatchObject({ measured: "+0.40 ms", pass: false });
    const rows = [
      jsonRow(1, figures(5000, latency(0.2, 0.5, 1)), figures(4000, latency(0.3, 1.2, 2)), { cpu: 400, rssMb: 90 }),
      jsonRow(64, figures(9000, latency(5, 9, 12)), figures(6000, latency(8, 15, 20)), { cpu: 140, rssMb: 120 }),
    ];
    const checks = checkTargets(results(rows));
    const byName = Object.fromEntries(checks.map((check) => [check.name, check]));
    expect(byName["added latency p50, concurrency 1"]).toMatchObject({ measured: "+0.10 ms", pass: true });
    expect(byName["added latency p99, concurrency 1"]).toMatchObject({ measured: "+0.70 ms", pass: true });
    expect(byName["proxy CPU per request, non-streaming, concurrency 64"]).toMatchObject({ measured: "140 µs", pass: true });
    expect(byName["proxy RSS at concurrency 64"]).toMatchObject({ measured: "120 MB", pass: true });
    // No stream rows in this run: nothing measured is neither met nor missed.
    expect(byName["proxy CPU per request, 20-chunk stream"]).toMatchObject({ measured: "–", pass: null });
  });

  it("the open-streams target needs every stream open at once, completed, and no error", () => {
    const base = results([]);
    const open = { streams: 1000, completed: 1000, errors: 0, peakOpen: 1000, seconds: 9, peakRssBytes: 200 * 1024 * 1024, rssBeforeBytes: 0, cpuPercent: 40, cpuUsPerStream: 900, firstError: null };
    const pass = checkTargets({ ...base, openStreams: open }).filter((check) => check.name.includes("1000"));
    expect(pass.every((check) => check.pass)).toBe(true);
    const failed = checkTargets({ ...base, openStreams: { ...open, errors: 1, completed: 999 } }).find((check) => check.name.includes("none errored"));
    expect(failed?.pass).toBe(false);
  });
});

describe("contentionWarning", () => {
  it("speaks up only when the proxy waited for its core more than a tenth of a run", () => {
    const row = jsonRow(1, figures(5000, latency(0.2, 0.5, 1)), figures(4000, latency(0.3, 1.2, 2)), { cpu: 400, rssMb: 90 });
    expect(contentionWarning(results([row]))).toBe("");
    const contended = { ...row, proxy: { ...row.proxy, waitPercent: 42 } };
    expect(contentionWarning(results([row, contended]))).toMatch(/waited for its core up to 42%/);
  });
});
