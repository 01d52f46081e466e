import { describe, expect, it } from "vitest";
import type { SystemMeter } from "./system-cost.ts";
import { medianRun, proxiedRun, targetFigure, withBillingApart } from "./measure-row.ts";
import { counted, figures, latency } from "./test-fixtures.ts";

const run = (cpu: number) => counted(figures(1000, latency(1, 2, 3)), { cpu, rssMb: 100 });
const byCpu = (figures: { cpuUsPerRequest: number }) => figures.cpuUsPerRequest;

describe("medianRun", () => {
  it("keeps the run of median figure, whatever the order of the runs", () => {
    expect(medianRun([run(180), run(160), run(175)], byCpu).cpuUsPerRequest).toBe(175);
    expect(medianRun([run(160), run(175), run(180)], byCpu).cpuUsPerRequest).toBe(175);
    // An even count keeps the lower middle run, a single run itself.
    expect(medianRun([run(190), run(150), run(170), run(160)], byCpu).cpuUsPerRequest).toBe(160);
    expect(medianRun([run(123)], byCpu).cpuUsPerRequest).toBe(123);
  });

  it("keeps that run's own figures with its figure", () => {
    const slow = { ...run(200), requestsPerSecond: 1 };
    const middle = { ...run(150), requestsPerSecond: 2 };
    expect(medianRun([slow, middle, run(100)], byCpu)).toBe(middle);
  });
});

describe("targetFigure", () => {
  it("reads CPU at concurrency 64, the p99 at concurrency 1 (the first byte's for streams), nothing elsewhere", () => {
    const json = counted(figures(1000, latency(0.3, 2.5, 4)), { cpu: 170, rssMb: 100 });
    const stream = { ...counted(figures(1000, latency(0.5, 6, 9)), { cpu: 300, rssMb: 100 }), firstByte: latency(0.2, 1.5, 3) };
    expect(targetFigure({ concurrency: 64 })!.of(json)).toBe(170);
    expect(targetFigure({ concurrency: 1 })!.of(json)).toBe(2.5);
    expect(targetFigure({ concurrency: 1 })!.of(stream)).toBe(1.5);
    expect(targetFigure({ concurrency: 16 })).toBeNull();
    expect(targetFigure({ concurrency: 256 })).toBeNull();
  });
});

describe("withBillingApart", () => {
  const recorder = () => {
    const steps: string[] = [];
    return {
      steps,
      worker: { pause: () => void steps.push("pause"), resume: () => void steps.push("resume") },
      settle: async () => void steps.push("settle"),
    };
  };

  it("holds the worker still through the measurement, then lets it go and waits for the ledger", async () => {
    const { steps, worker, settle } = recorder();
    const result = await withBillingApart(worker, settle, async () => {
      steps.push("measure");
      return 42;
    });
    expect(result).toBe(42);
    expect(steps).toEqual(["pause", "measure", "resume", "settle"]);
  });

  it("lets the worker go when the measurement fails", async () => {
    const { steps, worker, settle } = recorder();
    await expect(
      withBillingApart(worker, settle, async () => {
        steps.push("measure");
        throw new Error("load failed");
      }),
    ).rejects.toThrow("load failed");
    expect(steps).toEqual(["pause", "measure", "resume", "settle"]);
  });
});

describe("proxiedRun", () => {
  it("holds the worker apart when the settings have one and the system is measured, and only then", async () => {
    const steps: string[] = [];
    const billingWorker = { pause: () => void steps.push("pause"), resume: () => void steps.push("resume") };
    const system = { settle: async () => void steps.push("settle") } as unknown as SystemMeter;
    const measure = async () => {
      steps.push("measure");
      return 7;
    };
    expect(await proxiedRun({ billingWorker, system }, measure)).toBe(7);
    expect(steps.splice(0)).toEqual(["pause", "measure", "resume", "settle"]);
    await proxiedRun({ billingWorker: null, system }, measure);
    expect(steps.splice(0)).toEqual(["measure"]);
    await proxiedRun({ billingWorker, system: null }, measure);
    expect(steps.splice(0)).toEqual(["measure"]);
  });
});
