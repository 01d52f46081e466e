import { describe, expect, it } from "vitest";
import { cpuPercent, cpuPerRequestUs, parseProcEntry, parseProcStat, parseRssBytes, parseSchedstat, ticksBetween, treeOf, treeTicks, waitPercent } from "./process-stats.ts";

// A real /proc/<pid>/stat line, with a command name that has a space and a parenthesis in it.
const STAT =
  "4967 (node (proxy) x) S 4874 4860 4860 0 -1 4194560 33333 0 2 0 1523 311 0 0 20 0 11 0 3106 1290964992 44100 18446744073709551615 1 1 0 0 0 0 0 16781312 17922 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0";

describe("parseProcStat", () => {
  it("reads utime and stime (fields 14 and 15) after the command name", () => {
    expect(parseProcStat(STAT)).toEqual({ user: 1523, system: 311 });
  });

  it("refuses a line it cannot read", () => {
    expect(() => parseProcStat("garbage")).toThrow(/unreadable/);
  });
});

describe("parseRssBytes", () => {
  it("reads VmRSS in bytes", () => {
    expect(parseRssBytes("Name:\tnode\nVmHWM:\t  200000 kB\nVmRSS:\t  123456 kB\nRssAnon:\t 1 kB\n")).toBe(123456 * 1024);
  });
});

describe("CPU per request", () => {
  const before = { user: 1000, system: 200 };
  const after = { user: 1250, system: 250 };

  it("is CPU ticks over ticks per second over requests, in microseconds", () => {
    expect(ticksBetween(before, after)).toBe(300);
    // 300 ticks at 100 Hz = 3 s of CPU for 20,000 requests = 150 µs each.
    expect(cpuPerRequestUs(before, after, 100, 20_000)).toBeCloseTo(150, 10);
  });

  it("is NaN when nothing was served", () => {
    expect(cpuPerRequestUs(before, after, 100, 0)).toBeNaN();
  });

  it("CPU share: 3 s of CPU in 6 s of wall time is half a core", () => {
    expect(cpuPercent(before, after, 100, 6000)).toBeCloseTo(50, 10);
  });
});

describe("run-queue wait", () => {
  it("reads /proc/<pid>/schedstat (ns on a core, ns waiting for one, timeslices)", () => {
    expect(parseSchedstat("1523000000 89183000 4120\n")).toEqual({ runNs: 1_523_000_000, waitNs: 89_183_000 });
    expect(() => parseSchedstat("")).toThrow(/unreadable/);
  });

  it("is the wait added over the run as a share of its wall time", () => {
    // 1.5 s more waiting over a 6 s run: a quarter of the time it wanted a core and had none.
    expect(waitPercent({ runNs: 0, waitNs: 500_000_000 }, { runNs: 4e9, waitNs: 2_000_000_000 }, 6000)).toBeCloseTo(25, 10);
  });
});

describe("process trees", () => {
  const entry = (pid: number, ppid: number, user: number, system: number, childUser = 0, childSystem = 0) => ({ pid, ppid, user, system, childUser, childSystem });

  it("reads the parent and the reaped children's CPU (fields 4, 16 and 17)", () => {
    expect(parseProcEntry(4967, STAT)).toEqual({ pid: 4967, ppid: 4874, user: 1523, system: 311, childUser: 0, childSystem: 0 });
  });

  it("collects a root and all its descendants, nothing else", () => {
    const entries = [entry(1, 0, 5, 5), entry(10, 1, 1, 1), entry(11, 10, 2, 2), entry(12, 10, 3, 3), entry(13, 11, 4, 4), entry(20, 1, 9, 9)];
    expect(treeOf(10, entries).map((item) => item.pid).sort()).toEqual([10, 11, 12, 13]);
    expect(treeOf(99, entries)).toEqual([]);
  });

  it("counts each live process and what its reaped children used (a backend that exited still counts)", () => {
    // The postmaster reaped a backend that used 7 + 3 ticks.
    const tree = [entry(10, 1, 100, 50, 7, 3), entry(11, 10, 20, 10)];
    expect(treeTicks(tree)).toEqual({ user: 127, system: 63 });
  });
});
