import { describe, expect, it } from "vitest";
import { formatSelfTimes, selfTimes, workKindOfSource, workKinds, type CpuProfile, type WorkKind } from "./profile-summary.ts";

const frame = (functionName: string, url = "", lineNumber = 0) => ({ functionName, url, lineNumber });

// Samples 1 ms apart: idle, two in `relay`, one in `parse`, one in `relay` reached by another path.
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame("(root)") },
    { id: 2, callFrame: frame("(idle)") },
    { id: 3, callFrame: frame("relay", "file:///work/main/apps/proxy/src/relay/relay-request.ts", 26) },
    { id: 4, callFrame: frame("parse", "file:///work/main/node_modules/.pnpm/x@1/node_modules/eventsource-parser/dist/index.js", 9) },
    { id: 5, callFrame: frame("relay", "file:///work/main/apps/proxy/src/relay/relay-request.ts", 26) },
  ],
  samples: [2, 3, 3, 4, 5],
  timeDeltas: [0, 1000, 1000, 1000, 1000],
  startTime: 0,
  endTime: 5000,
};

describe("selfTimes", () => {
  it("charges each sample the gap to the next and sums by function across call paths", () => {
    const times = selfTimes(profile);
    expect(times[0]).toMatchObject({ frame: "relay (relay-request.ts:27)", selfMs: 3, percent: 75 });
    expect(times.find((time) => time.frame.startsWith("parse"))).toMatchObject({ frame: "parse (eventsource-parser/dist/index.js:10)", selfMs: 1, percent: 25 });
    expect(times.find((time) => time.frame === "(idle)")?.percent).toBeNaN();
  });

  it("formats the top functions as a Markdown table", () => {
    const text = formatSelfTimes(selfTimes(profile), 1);
    expect(text.split("\n")).toEqual(["| self ms | % of busy | function |", "|---:|---:|---|", "| 3 | 75.0 | `relay (relay-request.ts:27)` |"]);
  });
});

describe("workKinds", () => {
  it("names each source file's kind of work", () => {
    const cases: Array<[string, string, WorkKind | null]> = [
      ["relay", "../src/relay/relay-request.ts", "own code"],
      ["forward", "file:///work/main/apps/bench/src/floor-proxy.ts", "own code"],
      ["x", "../../../node_modules/.pnpm/undici@8.12.4/node_modules/undici/lib/core/request.js", "undici"],
      ["wasm-function[20]", "wasm://wasm/00034eea", "undici"],
      ["x", "../../../node_modules/.pnpm/bullmq@5/node_modules/bullmq/dist/esm/classes/job.js", "BullMQ and ioredis"],
      ["x", "../../../node_modules/.pnpm/luxon@3/node_modules/luxon/src/datetime.js", "other libraries"],
      ["setHeader", "node:_http_outgoing", "node:http"],
      ["processTicksAndRejections", "node:internal/process/task_queues", "Node's ticks, events, timers"],
      ["emit", "node:events", "Node's ticks, events, timers"],
      ["Readable.read", "node:internal/streams/readable", "Node's streams and sockets"],
      ["hash", "node:internal/crypto/hash", "the rest (V8, Node's other modules, startup)"],
      ["writev", "", "socket writes and reads"],
      ["indexOfBuffer", "", null],
      ["(garbage collector)", "", "garbage collection"],
    ];
    for (const [name, source, kind] of cases) expect([name, source, workKindOfSource(name, source)]).toEqual([name, source, kind]);
  });

  it("shares the busy time by kind; a native counts as its caller's, idle as nothing", () => {
    // 1 ms apart: idle, own code, a native under own code, undici, the collector, writev.
    const tree: CpuProfile = {
      nodes: [
        { id: 1, callFrame: frame("(root)"), children: [2, 3, 5, 6, 7] },
        { id: 2, callFrame: frame("(idle)") },
        { id: 3, callFrame: frame("relay", "file:///work/main/apps/proxy/src/relay/relay-request.ts", 26), children: [4] },
        { id: 4, callFrame: frame("indexOfBuffer") },
        { id: 5, callFrame: frame("dispatch", "file:///work/main/node_modules/.pnpm/undici@8/node_modules/undici/lib/dispatcher/pool-base.js", 9) },
        { id: 6, callFrame: frame("(garbage collector)") },
        { id: 7, callFrame: frame("writev") },
      ],
      samples: [2, 3, 4, 5, 6, 7],
      timeDeltas: [0, 1000, 1000, 1000, 1000, 1000],
      startTime: 0,
      endTime: 6000,
    };
    const shares = workKinds(tree);
    expect(shares.get("own code")).toBeCloseTo(0.4);
    expect(shares.get("undici")).toBeCloseTo(0.2);
    expect(shares.get("garbage collection")).toBeCloseTo(0.2);
    expect(shares.get("socket writes and reads")).toBeCloseTo(0.2);
    expect(shares.get("node:http")).toBe(0);
    expect([...shares.values()].reduce((sum, share) => sum + share, 0)).toBeCloseTo(1);
  });
});
