import { describe, expect, it } from "vitest";
import { checkTargets, formatTargets } from "./targets.ts";
import { contentionWarning, FLOOR_NOTE, formatReport, noiseWarning, portkeyNote } from "./report.ts";
import { counted, figures, jsonRow, latency, results } from "./test-fixtures.ts";
import type { RowResult } from "./results.ts";

describe("checkTargets", () => {
  const floorRun = (p50: number, p99: number) => ({ run: figures(9000, latency(p50, p99, 10)), cpu: 100, rssMb: 100 });

  it("compares added latency at concurrency 1 with the floor's on the same row, and names the worst row", () => {
    // Proxy adds +0.40 / +1.50 ms, the floor +0.30 / +0.80: over the floor by +0.10 / +0.70 ms.
    const chat = jsonRow(1, figures(5000, latency(0.2, 0.5, 1)), figures(4000, latency(0.6, 2, 3)), { cpu: 400, rssMb: 90 }, floorRun(0.5, 1.3));
    // Messages: over the floor by +0.30 / +0.20 ms.
    const messages = { ...jsonRow(1, figures(5000, latency(0.2, 0.5, 1)), figures(4000, latency(0.8, 1.5, 3)), { cpu: 400, rssMb: 90 }, floorRun(0.5, 1.3)), id: "messages-c1" };
    const byName = Object.fromEntries(checkTargets(results([chat, messages])).map((check) => [check.name, check]));
    expect(byName["added latency p50 over the floor's, non-streaming, concurrency 1"]).toMatchObject({ limit: "<= +0.15 ms", measured: "+0.30 ms (messages c=1)", pass: false });
    expect(byName["added latency p99 over the floor's, non-streaming, concurrency 1"]).toMatchObject({ limit: "<= +1 ms", measured: "+0.70 ms (chat c=1)", pass: true });
    // No stream rows, no floor-less c=64 rows: not measured, neither met nor missed.
    expect(byName["added time to first byte p50 over the floor's, streams, concurrency 1"]).toMatchObject({ measured: "–", pass: null });
    expect(byName["proxy CPU per request ÷ the floor's, concurrency 64 (JSON and streams)"]).toMatchObject({ measured: "–", pass: null });
  });

  it("checks CPU at concurrency 64 against the floor, streams included, and the whole system's at 3x", () => {
    const system = (whole: number) => ({ workerUsPerRequest: 0, redisUsPerRequest: 0, postgresUsPerRequest: 0, wholeUsPerRequest: whole, billed: 10, proxied: 10 });
    const json = { ...jsonRow(64, figures(9000, latency(5, 9, 12)), figures(6000, latency(8, 15, 20)), { cpu: 140, rssMb: 140 }, floorRun(6, 10)), system: system(290) };
    const stream: RowResult = {
      id: "stream20-messages-c64",
      label: "messages, stream of 20",
      kind: "stream",
      concurrency: 64,
      direct: figures(3000, latency(2, 4, 5), latency(1, 2, 3)),
      floor: counted(figures(2500, latency(2.5, 5, 6), latency(1.2, 2.2, 3.2)), { cpu: 100, rssMb: 100 }),
      proxy: counted(figures(2000, latency(3, 6, 7), latency(1.5, 2.5, 3.5)), { cpu: 160, rssMb: 155 }),
      system: system(320),
    };
    const byName = Object.fromEntries(checkTargets(results([json, stream])).map((check) => [check.name, check]));
    expect(byName["proxy CPU per request ÷ the floor's, concurrency 64 (JSON and streams)"]).toMatchObject({ limit: "<= 1.5x", measured: "1.60x (messages stream20 c=64)", pass: false });
    expect(byName["whole system CPU per request (proxy + worker + Redis + Postgres) ÷ the floor's, concurrency 64"]).toMatchObject({ measured: "3.20x (messages stream20 c=64)", pass: false });
    expect(byName["RSS per proxy process, concurrency 64"]).toMatchObject({ limit: "<= 150 MB", measured: "155 MB (messages stream20 c=64)", pass: false });
    expect(byName["proxy RSS minus the floor's on the same row, concurrency 64"]).toMatchObject({ measured: "+55 MB", pass: null });
    expect(byName["ledger rows for the proxied requests, every row"]).toMatchObject({ measured: "20 rows for 20 requests", pass: true });
    const lost = checkTargets(results([{ ...json, system: { ...system(290), billed: 9 } }])).find((check) => check.name.startsWith("ledger rows"));
    expect(lost).toMatchObject({ measured: "9 rows for 10 requests", pass: false });
  });

  it("reads no row that crosses shapes: the same checks with or without them", () => {
    const c64 = jsonRow(64, figures(9000, latency(5, 9, 12)), figures(6000, latency(8, 15, 20)), { cpu: 140, rssMb: 140 }, floorRun(6, 10));
    // Twice the floor's CPU and over the RSS limit: every c=64 target would read it.
    const cross = { ...jsonRow(64, figures(9000, latency(5, 9, 12)), figures(3000, latency(20, 40, 50)), { cpu: 400, rssMb: 200 }, floorRun(6, 10)), id: "cross-messages-c64", label: "messages on an OpenAI-shape model" };
    expect(checkTargets(results([c64, cross]))).toEqual(checkTargets(results([c64])));
  });

  it("checks the whole ledger after the runs: every count equal to the requests served", () => {
    const name = "the whole ledger after the runs: usage_records rows, and the requests each day-total table adds up";
    const exact = { proxied: 700, records: 700, keyDays: 700, aggregates: 700, vendorDays: 700 };
    const find = (ledger: typeof exact | undefined) => checkTargets({ ...results([]), ...(ledger ? { ledger } : {}) }).find((check) => check.name === name);
    expect(find(exact)).toMatchObject({ measured: "700 rows; 700 / 700 / 700 (key days / aggregates / vendor days); 700 served", pass: true });
    for (const field of ["records", "keyDays", "aggregates", "vendorDays", "proxied"] as const) {
      expect(find({ ...exact, [field]: 699 })?.pass).toBe(false);
    }
    expect(find(undefined)).toBeUndefined();
  });

  it("shows a figure with the digits that keep it on its own side of the limit", () => {
    const c64 = (cpu: number, rssMb: number) => jsonRow(64, figures(9000, latency(5, 9, 12)), figures(6000, latency(8, 15, 20)), { cpu, rssMb }, floorRun(6, 10));
    const cpuCheck = (cpu: number, rssMb = 140) => {
      const checks = Object.fromEntries(checkTargets(results([c64(cpu, rssMb)])).map((check) => [check.name, check]));
      return { cpu: checks["proxy CPU per request ÷ the floor's, concurrency 64 (JSON and streams)"], rss: checks["RSS per proxy process, concurrency 64"] };
    };
    // 1.503x is over 1.5x: "1.50x" would read as met.
    expect(cpuCheck(150.3).cpu).toMatchObject({ measured: "1.503x (chat c=64)", pass: false });
    // 1.4996x is within; two digits already say so.
    expect(cpuCheck(149.96).cpu).toMatchObject({ measured: "1.50x (chat c=64)", pass: true });
    expect(cpuCheck(120).cpu).toMatchObject({ measured: "1.20x (chat c=64)", pass: true });
    // 150.4 MB is over 150 MB.
    expect(cpuCheck(120, 150.4).rss).toMatchObject({ measured: "150.4 MB (chat c=64)", pass: false });
    expect(cpuCheck(120, 149.6).rss).toMatchObject({ measured: "150 MB (chat c=64)", pass: true });
  });

  it("needs the proxy below Portkey's added latency on every row, and at most a third of its CPU", () => {
    const row = (id: string, proxyP50: number, portkeyP50: number, portkeyCpu: number): RowResult => ({
      ...jsonRow(16, figures(9000, latency(1, 2, 3)), figures(6000, latency(proxyP50, 3, 4)), { cpu: 100, rssMb: 100 }),
      id,
      portkey: counted(figures(5000, latency(portkeyP50, 6, 8)), { cpu: portkeyCpu, rssMb: 200 }),
    });
    const below = checkTargets(results([row("chat-c16", 1.5, 2.5, 400), row("messages-c16", 1.2, 1.4, 290)]));
    const byName = Object.fromEntries(below.map((check) => [check.name, check]));
    // Proxy - Portkey added p50: -1.00 (chat), -0.20 (messages): the worst is still below.
    expect(byName["added latency p50 minus Portkey's, every row (first byte for streams)"]).toMatchObject({ measured: "-0.20 ms (messages c=16)", pass: true });
    expect(byName["added latency p99 minus Portkey's, every row (first byte for streams)"]).toMatchObject({ measured: "-3.00 ms (chat c=16)", pass: true });
    expect(byName["proxy CPU per request ÷ Portkey's, every row"]).toMatchObject({ limit: "<= 0.33x (a third)", measured: "0.34x (messages c=16)", pass: false });
    const above = checkTargets(results([row("chat-c16", 1.5, 1.5, 400)])).find((check) => check.name.startsWith("added latency p50 minus Portkey's"));
    expect(above).toMatchObject({ measured: "+0.00 ms (chat c=16)", pass: false });
    expect(formatTargets(below)).toContain("| proxy CPU per request ÷ Portkey's, every row | <= 0.33x (a third) | 0.34x (messages c=16) | **missed** |");
  });

  it("without a floor or Portkey their checks are not measured", () => {
    const row = jsonRow(64, figures(9000, latency(5, 9, 12)), figures(6000, latency(8, 15, 20)), { cpu: 140, rssMb: 120 });
    const unmeasured = checkTargets(results([row])).filter((check) => check.name.includes("floor") || check.name.includes("Portkey"));
    expect(unmeasured.length).toBeGreaterThanOrEqual(7);
    for (const check of unmeasured) expect(check).toMatchObject({ measured: "–", pass: null });
    expect(formatTargets(unmeasured)).toContain("| – | not measured |");
  });

  it("the open-streams target needs every stream open at once, completed, and no error", () => {
    const base = results([]);
    const open = { streams: 1000, completed: 1000, errors: 0, peakOpen: 1000, seconds: 9, peakRssBytes: 200 * 1024 * 1024, rssBeforeBytes: 0, cpuPercent: 40, cpuUsPerStream: 900, firstError: null };
    const pass = checkTargets({ ...base, openStreams: open }).filter((check) => check.name.includes("1000"));
    expect(pass).toHaveLength(2);
    expect(pass.every((check) => check.pass)).toBe(true);
    expect(checkTargets({ ...base, openStreams: { ...open, peakRssBytes: 301 * 1024 * 1024 } }).find((check) => check.name.startsWith("RSS per proxy process with"))).toMatchObject({ measured: "301 MB", pass: false });
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

describe("noiseWarning", () => {
  const row = (concurrency: number, runs: { figure: string; floor: number[]; proxy: number[] }) => ({
    ...jsonRow(concurrency, figures(5000, latency(0.2, 0.5, 1)), figures(4000, latency(0.3, 1.2, 2)), { cpu: 130, rssMb: 90 }),
    runs,
  });

  it("names the rows whose runs of one side differ beyond the figure's limit", () => {
    const steady = row(64, { figure: "CPU µs/req", floor: [80, 84, 79], proxy: [132, 130, 128] });
    const drifting = { ...row(64, { figure: "CPU µs/req", floor: [137, 216, 202], proxy: [188, 196, 200] }), id: "messages-c64" };
    expect(noiseWarning(results([steady]))).toBe("");
    const warning = noiseWarning(results([steady, drifting]));
    expect(warning).toContain("messages-c64 (CPU µs/req: floor 137-216)");
    expect(warning).not.toContain("chat-c64");
    expect(formatReport(results([steady, drifting]))).toContain(warning);
  });

  it("allows the p99 runs a wider spread than the CPU runs", () => {
    expect(noiseWarning(results([row(1, { figure: "p99 ms", floor: [0.77, 1.47, 0.87], proxy: [1.62, 2.15, 1.98] })]))).toBe("");
    expect(noiseWarning(results([row(1, { figure: "p99 ms", floor: [0.98, 3.32, 1.31], proxy: [2.26, 3.66, 3.68] })]))).toContain(
      "chat-c1 (p99 ms: floor 0.98-3.32)",
    );
  });
});

describe("formatReport", () => {
  it("explains the floor when a row measured one", () => {
    const direct = figures(5000, latency(0.2, 0.5, 1));
    const proxy = figures(4000, latency(0.3, 1.2, 2));
    expect(formatReport(results([jsonRow(1, direct, proxy, { cpu: 400, rssMb: 90 })]))).not.toContain(FLOOR_NOTE);
    expect(formatReport(results([jsonRow(1, direct, proxy, { cpu: 400, rssMb: 90 }, { run: direct, cpu: 100, rssMb: 60 })]))).toContain(FLOOR_NOTE);
  });

  it("explains the Portkey side with the version the run used, and prints the scaling line", () => {
    const direct = figures(5000, latency(0.2, 0.5, 1));
    const proxy = figures(4000, latency(0.3, 1.2, 2));
    const row = { ...jsonRow(1, direct, proxy, { cpu: 400, rssMb: 90 }), portkey: counted(proxy, { cpu: 900, rssMb: 150 }) };
    const base = results([row]);
    const report = formatReport({ ...base, settings: { ...base.settings, portkey: "Portkey's gateway 1.15.2" }, scaling: { label: "chat completions", concurrency: 64, processes: 2, loadAlone: { ...direct, loadCpuUsPerRequest: 20 }, one: { ...row.proxy, loadCpuUsPerRequest: 20 }, many: { ...row.proxy, loadCpuUsPerRequest: 20 } } });
    expect(report).toContain(portkeyNote("Portkey's gateway 1.15.2"));
    expect(report).toContain("x-portkey-custom-host");
    expect(report).toContain("throughput 1.00x");
    expect(formatReport(results([jsonRow(1, direct, proxy, { cpu: 400, rssMb: 90 })]))).not.toContain("x-portkey");
  });
});
