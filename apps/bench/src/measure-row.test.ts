import { describe, expect, it } from "vitest";
import { medianCpuRun } from "./measure-row.ts";
import { counted, figures, latency } from "./test-fixtures.ts";

const run = (cpu: number) => counted(figures(1000, latency(1, 2, 3)), { cpu, rssMb: 100 });

describe("medianCpuRun", () => {
  it("keeps the run of median CPU per request, whatever the order of the runs", () => {
    expect(medianCpuRun([run(180), run(160), run(175)]).cpuUsPerRequest).toBe(175);
    expect(medianCpuRun([run(160), run(175), run(180)]).cpuUsPerRequest).toBe(175);
    // An even count keeps the lower middle run, a single run itself.
    expect(medianCpuRun([run(190), run(150), run(170), run(160)]).cpuUsPerRequest).toBe(160);
    expect(medianCpuRun([run(123)]).cpuUsPerRequest).toBe(123);
  });

  it("keeps that run's own figures with its CPU", () => {
    const slow = { ...run(200), requestsPerSecond: 1 };
    const middle = { ...run(150), requestsPerSecond: 2 };
    expect(medianCpuRun([slow, middle, run(100)])).toBe(middle);
  });
});
