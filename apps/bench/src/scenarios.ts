import type { RowKind } from "./results.ts";
import type { Api, RequestShape } from "./request-target.ts";

/** One row of the table: the same request, measured straight to the simulator and through the proxy. */
export interface Scenario {
  id: string;
  label: string;
  kind: RowKind;
  concurrency: number;
  shape: RequestShape;
}

const LABEL: Record<Api, string> = { chat: "chat completions", messages: "messages" };
const APIS: readonly Api[] = ["chat", "messages"];

/** The slow streams held open together: 40 chunks 200 ms apart, about 8 s each. */
export const OPEN_STREAM_DIRECTIVES = "#sim:chunks=40 #sim:chunk_delay_ms=200";
export const OPEN_STREAMS_ID = "open-streams";

export function allScenarios(): Scenario[] {
  const rows: Scenario[] = [];
  for (const api of APIS) {
    for (const concurrency of [1, 16, 64, 256]) {
      rows.push({ id: `${api}-c${concurrency}`, label: LABEL[api], kind: "json", concurrency, shape: { api, stream: false } });
    }
  }
  // Time to first and last byte of a 50-chunk stream (the simulator sends it with no delay).
  for (const concurrency of [1, 16]) {
    for (const api of APIS) {
      rows.push({
        id: `stream50-${api}-c${concurrency}`,
        label: `${LABEL[api]}, stream of 50`,
        kind: "stream",
        concurrency,
        shape: { api, stream: true, directives: "#sim:chunks=50" },
      });
    }
  }
  // The proxy's CPU per streamed request, at a stream length typical of a short answer.
  for (const api of APIS) {
    rows.push({
      id: `stream20-${api}-c16`,
      label: `${LABEL[api]}, stream of 20`,
      kind: "stream",
      concurrency: 16,
      shape: { api, stream: true, directives: "#sim:chunks=20" },
    });
  }
  return rows;
}

/** Filter entries name whole dash-separated leading parts of ids: `chat-c1` is not `chat-c16`, `stream50` is every 50-chunk row. */
function matches(id: string, part: string): boolean {
  return id === part || id.startsWith(`${part}-`);
}

function parts(filter: string): string[] {
  return filter.split(",").map((part) => part.trim()).filter(Boolean);
}

/** `filter` is a comma list of row ids or leading parts of them (`chat-c1,stream50`); empty selects everything. */
export function selectScenarios(scenarios: readonly Scenario[], filter: string): Scenario[] {
  const wanted = parts(filter);
  if (wanted.length === 0) return [...scenarios];
  return scenarios.filter((scenario) => wanted.some((part) => matches(scenario.id, part)));
}

export function includesOpenStreams(filter: string): boolean {
  const wanted = parts(filter);
  return wanted.length === 0 || wanted.some((part) => matches(OPEN_STREAMS_ID, part));
}
