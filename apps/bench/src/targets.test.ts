import { describe, expect, it } from "vitest";
import { checkTargets, formatTargets } from "./targets.ts";
import { contentionWarning, FLOOR_NOTE, formatReport } from "./report.ts";
import { counted, figures, jsonRow, latency, results } from "./test-fixtures.ts";
import type { RowResult } from "./results.ts";

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

  it("restates each CPU limit against the floor on the same row, and reports the proxy's RSS minus the floor's", () => {
    const floorRun = figures(9000, latency(4, 8, 10));
    const stream = (api: string, proxyCpu: number, floorCpu: number): RowResult => ({
      id: `stream20-${api}-c16`,
      label: `${api}, stream of 20`,
      kind: "stream",
      concurrency: 16,
      direct: figures(3000, latency(2, 4, 5), latency(1, 2, 3)),
      floor: counted(figures(2500, latency(2.5, 5, 6), latency(1.2, 2.2, 3.2)), { cpu: floorCpu, rssMb: 70 }),
      proxy: counted(figures(2000, latency(3, 6, 7), latency(1.5, 2.5, 3.5)), { cpu: proxyCpu, rssMb: 110 }),
    });
    const rows = [
      // 300 µs against a 100 µs floor: over 150 µs, but 3.00x the floor is within 150 / 45 = 3.33x.
      jsonRow(64, figures(9000, latency(5, 9, 12)), figures(6000, latency(8, 15, 20)), { cpu: 300, rssMb: 160 }, { run: floorRun, cpu: 100, rssMb: 130 }),
      // The worst of the rows counts: 3.50x here.
      { ...jsonRow(64, figures(9000, latency(5, 9, 12)), figures(6000, latency(8, 15, 20)), { cpu: 350, rssMb: 140 }, { run: floorRun, cpu: 100, rssMb: 100 }), id: "messages-c64" },
      stream("chat", 500, 100),
      stream("messages", 600, 100),
    ];
    const checks = checkTargets(results(rows));
    const byName = Object.fromEntries(checks.map((check) => [check.name, check]));
    expect(byName["proxy CPU per request, non-streaming, concurrency 64"]).toMatchObject({ limit: "<= 150 µs", measured: "350 µs", pass: false });
    expect(byName["proxy CPU per request ÷ the floor's on the same row, non-streaming, concurrency 64"]).toEqual({
      name: "proxy CPU per request ÷ the floor's on the same row, non-streaming, concurrency 64",
      limit: "<= 3.33x (150 µs ÷ the issue's 45 µs floor)",
      measured: "3.50x",
      pass: false,
    });
    expect(byName["proxy CPU per request ÷ the floor's on the same row, 20-chunk stream"]).toEqual({
      name: "proxy CPU per request ÷ the floor's on the same row, 20-chunk stream",
      limit: "<= 5.56x (250 µs ÷ the issue's 45 µs floor)",
      measured: "6.00x",
      pass: false,
    });
    expect(byName["proxy RSS minus the floor's on the same row, concurrency 64"]).toEqual({
      name: "proxy RSS minus the floor's on the same row, concurrency 64",
      limit: "none (reported only)",
      measured: "+40 MB",
      pass: null,
    });
    // Each floor check sits right after the absolute check it restates.
    const names = checks.map((check) => check.name);
    expect(names.indexOf("proxy CPU per request ÷ the floor's on the same row, non-streaming, concurrency 64")).toBe(names.indexOf("proxy CPU per request, non-streaming, concurrency 64") + 1);
    expect(names.indexOf("proxy CPU per request ÷ the floor's on the same row, 20-chunk stream")).toBe(names.indexOf("proxy CPU per request, 20-chunk stream") + 1);
    expect(names.indexOf("proxy RSS minus the floor's on the same row, concurrency 64")).toBe(names.indexOf("proxy RSS at concurrency 64") + 1);

    const within = checkTargets(results([rows[0]!, stream("chat", 500, 100)]));
    expect(within.find((check) => check.name.startsWith("proxy CPU per request ÷ the floor's on the same row, non"))).toMatchObject({ measured: "3.00x", pass: true });
    expect(within.find((check) => check.name.endsWith("20-chunk stream") && check.name.includes("floor"))).toMatchObject({ measured: "5.00x", pass: true });

    const table = formatTargets(checks);
    expect(table).toContain("| proxy CPU per request ÷ the floor's on the same row, non-streaming, concurrency 64 | <= 3.33x (150 µs ÷ the issue's 45 µs floor) | 3.50x | **missed** |");
    expect(table).toContain("| proxy RSS minus the floor's on the same row, concurrency 64 | none (reported only) | +40 MB | – |");
  });

  it("without a floor the floor checks are not measured", () => {
    const row = jsonRow(64, figures(9000, latency(5, 9, 12)), figures(6000, latency(8, 15, 20)), { cpu: 140, rssMb: 120 });
    const floorChecks = checkTargets(results([row])).filter((check) => check.name.includes("floor"));
    expect(floorChecks).toHaveLength(3);
    for (const check of floorChecks) expect(check).toMatchObject({ measured: "–", pass: null });
    expect(formatTargets(floorChecks)).toContain("| – | not measured |");
  });

  it("the open-streams target needs every stream open at once, completed, and no error", () => {
    const base = results([]);
    const open = { streams: 1000, completed: 1000, errors: 0, peakOpen: 1000, seconds: 9, peakRssBytes: 200 * 1024 * 1024, rssBeforeBytes: 0, cpuPercent: 40, cpuUsPerStream: 900, firstError: null };
    const pass = checkTargets({ ...base, openStreams: open }).filter((check) => check.name.includes("1000"));
    expect(pass.every((check) => check.pass)).toBe(true);
    const failed = checkTargets({ ...base, openStreams: { ...open, errors: 1, completed: 999 } }).find((check) => check.name.includes("none errored"));
    expect(failed?.pass).toBe(false);
    const withFloor = checkTargets({ ...base, openStreams: open, floorOpenStreams: { ...open, peakRssBytes: 150 * 1024 * 1024 } });
    expect(withFloor.find((check) => check.name === "proxy RSS minus the floor's with 1000 open streams")).toMatchObject({ measured: "+50 MB", pass: null });
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

describe("formatReport", () => {
  it("explains the floor when a row measured one", () => {
    const direct = figures(5000, latency(0.2, 0.5, 1));
    const proxy = figures(4000, latency(0.3, 1.2, 2));
    expect(formatReport(results([jsonRow(1, direct, proxy, { cpu: 400, rssMb: 90 })]))).not.toContain(FLOOR_NOTE);
    expect(formatReport(results([jsonRow(1, direct, proxy, { cpu: 400, rssMb: 90 }, { run: direct, cpu: 100, rssMb: 60 })]))).toContain(FLOOR_NOTE);
  });
});
