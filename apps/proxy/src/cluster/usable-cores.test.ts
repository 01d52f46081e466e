import { mkdtempSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { quotaCores, usableCores } from "./usable-cores.ts";

describe("the cores a container may use", () => {
  it("reads the cgroup v2 quota, rounded up", () => {
    expect(quotaCores("100000 100000\n")).toBe(1);
    expect(quotaCores("250000 100000")).toBe(3);
    expect(quotaCores("50000 100000")).toBe(1);
    expect(quotaCores("max 100000")).toBeNull();
    expect(quotaCores("garbage")).toBeNull();
  });

  it("caps the CPUs by the quota, and uses the CPUs when there is no quota file", () => {
    const dir = mkdtempSync(join(tmpdir(), "cpu-max-"));
    const file = join(dir, "cpu.max");
    writeFileSync(file, "100000 100000\n");
    expect(usableCores(file)).toBe(1);
    writeFileSync(file, "max 100000\n");
    expect(usableCores(file)).toBe(availableParallelism());
    expect(usableCores(join(dir, "missing"))).toBe(availableParallelism());
  });
});
