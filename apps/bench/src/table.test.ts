import { describe, expect, it } from "vitest";
import { addedMs, floorCpuRatio, portkeyCpuRatio, systemFloorCpuRatio, throughputRatio } from "./results.ts";
import { formatAdded, formatMs, formatOpenStreams, formatScaling, formatTable } from "./table.ts";
import { counted, figures, jsonRow, latency } from "./test-fixtures.ts";

const direct = figures(10_000, latency(0.5, 1.2, 3));
const proxy = figures(8_000, latency(0.62, 1.9, 4.5));
const floor = figures(9_000, latency(0.55, 1.5, 3.5));
const row = jsonRow(16, direct, proxy, { cpu: 120.4, rssMb: 95 }, { run: floor, cpu: 40, rssMb: 60 });

describe("proxy against direct", () => {
  it("added latency is proxy minus direct, per percentile", () => {
    expect(addedMs(direct.latency, proxy.latency, "p50")).toBeCloseTo(0.12, 10);
    expect(addedMs(direct.latency, proxy.latency, "p99")).toBeCloseTo(0.7, 10);
    expect(addedMs(null, proxy.latency, "p50")).toBeNaN();
  });

  it("the throughput ratio is proxy over direct", () => {
    expect(throughputRatio(row)).toBe(0.8);
    expect(throughputRatio({ ...row, direct: null })).toBeNaN();
  });

  it("the floor CPU ratio is proxy CPU per request over the floor's on the same row", () => {
    expect(floorCpuRatio(row)).toBeCloseTo(3.01, 10);
    expect(floorCpuRatio({ ...row, floor: null })).toBeNaN();
    expect(floorCpuRatio({ ...row, floor: { ...row.floor!, cpuUsPerRequest: 0 } })).toBeNaN();
  });

  it("the Portkey ratio is proxy CPU over Portkey's; the system ratio is proxy + worker + Redis + Postgres over the floor's", () => {
    expect(portkeyCpuRatio(row)).toBeNaN();
    expect(portkeyCpuRatio({ ...row, portkey: counted(floor, { cpu: 301, rssMb: 150 }) })).toBeCloseTo(0.4, 10);
    expect(systemFloorCpuRatio(row)).toBeNaN();
    expect(systemFloorCpuRatio({ ...row, system: { workerUsPerRequest: 50, redisUsPerRequest: 20, postgresUsPerRequest: 30, wholeUsPerRequest: 200, billed: 5, proxied: 5 } })).toBe(5);
  });
});

describe("number formatting", () => {
  it("keeps two decimals below 10 ms, one above, and signs added figures", () => {
    expect(formatMs(0.123)).toBe("0.12");
    expect(formatMs(12.345)).toBe("12.3");
    expect(formatAdded(0.12)).toBe("+0.12");
    expect(formatAdded(-0.05)).toBe("-0.05");
    expect(formatAdded(Number.NaN)).toBe("–");
  });
});

describe("formatTable", () => {
  it("prints one Markdown line per JSON row with the ratio, the added latencies and the floor", () => {
    const lines = formatTable([row]).split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe(
      "| row | conc | direct req/s | proxy req/s | ratio | direct p50 / p99 / p99.9 ms | proxy p50 / p99 / p99.9 ms | added p50 ms | added p99 ms | added p99.9 ms | " +
        "floor added p50 / p99 ms | portkey added p50 / p99 ms | proxy CPU µs/req | floor CPU µs/req | proxy/floor CPU | portkey CPU µs/req | proxy/portkey CPU | " +
        "worker / Redis / Postgres CPU µs/req | system CPU µs/req | system/floor CPU | proxy CPU % | proxy wait % | load wait % d/f/k/p | proxy RSS MB | floor RSS MB | portkey RSS MB | " +
        "billed / proxied | errors d/f/k/p |",
    );
    expect(lines[1]!.split("|")).toHaveLength(lines[0]!.split("|").length);
    expect(lines[2]).toBe(
      "| chat completions | 16 | 10,000 | 8,000 | 0.80 | 0.50 / 1.20 / 3.00 | 0.62 / 1.90 / 4.50 | +0.12 | +0.70 | +1.50 | +0.05 / +0.30 | – | 120 | 40 | 3.01 | – | – | – | – | – | 90 | 4 | 5/5/–/5 | 95 | 60 | – | – | 0/0/–/0 |",
    );
  });

  it("fills the Portkey, system and billed columns when measured, and dashes without a floor", () => {
    const portkey = counted(figures(6_000, latency(0.9, 3.2, 6)), { cpu: 361.2, rssMb: 180 });
    const system = { workerUsPerRequest: 60.4, redisUsPerRequest: 30, postgresUsPerRequest: 90, wholeUsPerRequest: 300.8, billed: 48_000, proxied: 48_000 };
    const line = formatTable([{ ...row, floor: null, portkey, system }]).split("\n")[2];
    expect(line).toBe(
      "| chat completions | 16 | 10,000 | 8,000 | 0.80 | 0.50 / 1.20 / 3.00 | 0.62 / 1.90 / 4.50 | +0.12 | +0.70 | +1.50 | – | +0.40 / +2.00 | 120 | – | – | 361 | 0.33 | 60 / 30 / 90 | 301 | – | 90 | 4 | 5/–/5/5 | 95 | – | 180 | 48,000 / 48,000 | 0/–/0/0 |",
    );
  });

  it("prints two lines per stream row: first byte and last byte", () => {
    const stream = {
      ...row,
      id: "stream50-chat-c1",
      label: "chat completions, stream of 50",
      kind: "stream" as const,
      concurrency: 1,
      direct: figures(1000, latency(0.4, 1, 2), latency(0.3, 0.9, 1.8)),
      floor: { ...row.floor!, latency: latency(0.6, 1.5, 2.5), firstByte: latency(0.4, 1, 2) },
      proxy: { ...row.proxy, latency: latency(0.9, 2, 3), firstByte: latency(0.7, 1.5, 2.5) },
    };
    const lines = formatTable([stream]).split("\n").slice(2);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\| chat completions, stream of 50 \(first byte\) \| 1 \| 1,000 \|/);
    // added p50 / p99 / p99.9, then the floor's added p50 / p99 (first byte: 0.4 - 0.3, 1 - 0.9).
    expect(lines[0]).toContain("| +0.40 | +0.60 | +0.70 | +0.10 / +0.10 | – | 120 | 40 | 3.01 |");
    expect(lines[1]).toMatch(/^\| chat completions, stream of 50 \(last byte\) \| 1 \|  \|  \|  \|/);
    // Last byte: the floor's added p50 / p99 (0.6 - 0.4, 1.5 - 1); CPU and RSS only on the first line.
    expect(lines[1]).toContain("| +0.50 | +1.00 | +1.00 | +0.20 / +0.50 | – |  |  |  |");
  });
});

describe("formatOpenStreams", () => {
  const open = { streams: 1000, completed: 1000, errors: 0, peakOpen: 1000, seconds: 9, peakRssBytes: 200 * 1024 * 1024, rssBeforeBytes: 90 * 1024 * 1024, cpuPercent: 40, cpuUsPerStream: 900, firstError: null };

  it("adds the floor's RSS for the same streams when it ran", () => {
    expect(formatOpenStreams(open)).not.toContain("floor");
    const text = formatOpenStreams(open, { ...open, peakRssBytes: 120 * 1024 * 1024, rssBeforeBytes: 50 * 1024 * 1024, cpuUsPerStream: 300 });
    expect(text).toContain("proxy RSS 90 MB before, 200 MB peak");
    expect(text).toContain("floor RSS 50 MB before, 120 MB peak; floor CPU 300 µs per stream");
  });
});

describe("formatScaling", () => {
  it("gives each side's throughput and the ratio", () => {
    const one = { ...counted(figures(2_000, latency(30, 80, 200)), { cpu: 450, rssMb: 160 }), loadCpuUsPerRequest: 21 };
    const many = { ...counted(figures(3_100, latency(20, 60, 150)), { cpu: 480, rssMb: 158 }), loadCpuUsPerRequest: 23 };
    const loadAlone = { ...figures(40_000, latency(1, 2, 3)), loadCpuUsPerRequest: 19 };
    const text = formatScaling({ label: "chat completions", concurrency: 64, processes: 2, loadAlone, one, many });
    expect(text).toContain("the load side alone 40,000 req/s (19 µs/req, 0 errors)");
    expect(text).toContain("1 process: 2,000 req/s");
    expect(text).toContain("CPU 450 µs/req (all processes; the load side 21)");
    expect(text).toContain("2 processes: 3,100 req/s");
    expect(text).toContain("throughput 1.55x");
  });
});
