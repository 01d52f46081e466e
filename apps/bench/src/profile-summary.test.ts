import { describe, expect, it } from "vitest";
import { formatSelfTimes, selfTimes, type CpuProfile } from "./profile-summary.ts";

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
