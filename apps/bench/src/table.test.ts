import { describe, expect, it } from "vitest";
import { addedMs, throughputRatio } from "./results.ts";
import { formatAdded, formatMs, formatTable } from "./table.ts";
import { figures, jsonRow, latency } from "./test-fixtures.ts";

const direct = figures(10_000, latency(0.5, 1.2, 3));
const proxy = figures(8_000, latency(0.62, 1.9, 4.5));
const row = jsonRow(16, direct, proxy, { cpu: 120.4, rssMb: 95 });

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
  it("prints one Markdown line per JSON row with the ratio and the added latencies", () => {
    const lines = formatTable([row]).split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[0]).toContain("| row | conc | direct req/s | proxy req/s | ratio |");
    expect(lines[2]).toBe(
      "| chat completions | 16 | 10,000 | 8,000 | 0.80 | 0.50 / 1.20 / 3.00 | 0.62 / 1.90 / 4.50 | +0.12 | +0.70 | +1.50 | 120 | 90 | 4 | 5/5 | 95 | 0/0 |",
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
      proxy: { ...row.proxy, latency: latency(0.9, 2, 3), firstByte: latency(0.7, 1.5, 2.5) },
    };
    const lines = formatTable([stream]).split("\n").slice(2);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\| chat completions, stream of 50 \(first byte\) \| 1 \| 1,000 \|/);
    expect(lines[0]).toContain("| +0.40 | +0.60 | +0.70 |");
    expect(lines[1]).toMatch(/^\| chat completions, stream of 50 \(last byte\) \| 1 \|  \|  \|  \|/);
    expect(lines[1]).toContain("| +0.50 | +1.00 | +1.00 |");
  });
});
