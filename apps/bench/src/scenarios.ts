import type { RowKind } from "./results.ts";
import { CROSS_SHAPE_MODEL, RECORDED_CHAT_MODEL, type Api, type RequestShape } from "./request-target.ts";

/** One row of the table: the same request, measured straight to the simulator and through the proxy. */
export interface Scenario {
  id: string;
  label: string;
  kind: RowKind;
  concurrency: number;
  shape: RequestShape;
  /**
   * The load generator: autocannon for JSON rows and the stream client for streams by default;
   * `lean` is lean-load.ts (the scaling step, whose load shares the cores with the proxy).
   */
  load?: "lean";
}

const LABEL: Record<Api, string> = { chat: "chat completions", messages: "messages" };
const APIS: readonly Api[] = ["chat", "messages"];

/** The slow streams held open together: 40 chunks 200 ms apart, about 8 s each. */
export const OPEN_STREAM_DIRECTIVES = "#sim:chunks=40 #sim:chunk_delay_ms=200";
export const OPEN_STREAMS_ID = "open-streams";
/**
 * Chat completions at concurrency 64 through one proxy process and through PROXY_PROCESSES=2, with
 * the lean load generator and the recorded upstream: on two cores the second process shares its
 * core with them, so they must cost little for the step to read the proxy's scaling.
 */
export const SCALING_ID = "scaling";
export const SCALING_SCENARIO: Scenario = {
  id: SCALING_ID,
  label: `${LABEL.chat} (lean load, recorded upstream)`,
  kind: "json",
  concurrency: 64,
  shape: { api: "chat", stream: false, model: RECORDED_CHAT_MODEL },
  load: "lean",
};

/** Rows of `chunks`-chunk streams (sent with no delay by the simulator), both APIs at each concurrency. */
function streamRows(chunks: number, concurrencies: readonly number[]): Scenario[] {
  return concurrencies.flatMap((concurrency) =>
    APIS.map((api): Scenario => ({
      id: `stream${chunks}-${api}-c${concurrency}`,
      label: `${LABEL[api]}, stream of ${chunks}`,
      kind: "stream",
      concurrency,
      shape: { api, stream: true, directives: `#sim:chunks=${chunks}` },
    })),
  );
}

/**
 * The rows that cross shapes: each API's client on a model served by the other shape
 * (`CROSS_SHAPE_MODEL`), so every request and answer is translated (issue 39's baseline; every other
 * row is same-shape). JSON and 20-chunk streams at concurrency 64. Shown in the table; issue 18's
 * targets read none of them (`crossesShapes`).
 */
export const CROSS_SHAPE_ID = "cross";
const OTHER_SHAPE: Record<Api, string> = { chat: "an Anthropic-shape model", messages: "an OpenAI-shape model" };

function crossShapeRows(concurrency: number): Scenario[] {
  const row = (api: Api, stream: boolean): Scenario => ({
    id: `${CROSS_SHAPE_ID}-${stream ? "stream20-" : ""}${api}-c${concurrency}`,
    label: `${LABEL[api]} on ${OTHER_SHAPE[api]}${stream ? ", stream of 20" : ""}`,
    kind: stream ? "stream" : "json",
    concurrency,
    shape: { api, stream, model: CROSS_SHAPE_MODEL[api], ...(stream ? { directives: "#sim:chunks=20" } : {}) },
  });
  return [...APIS.map((api) => row(api, false)), ...APIS.map((api) => row(api, true))];
}

/** Whether a row crosses shapes (`crossShapeRows`): the targets leave it out. */
export function crossesShapes(id: string): boolean {
  return matches(id, CROSS_SHAPE_ID);
}

export function allScenarios(): Scenario[] {
  const rows: Scenario[] = [];
  for (const api of APIS) {
    for (const concurrency of [1, 16, 64, 256]) {
      rows.push({ id: `${api}-c${concurrency}`, label: LABEL[api], kind: "json", concurrency, shape: { api, stream: false } });
    }
  }
  // Time to first and last byte of a 50-chunk stream; then the CPU per streamed request, at a
  // stream length typical of a short answer.
  return [...rows, ...streamRows(50, [1, 16]), ...streamRows(20, [16, 64]), ...crossShapeRows(64)];
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

/** Whether the filter selects a step that is not a table row (`open-streams`, `scaling`); empty selects everything. */
export function includesStep(filter: string, id: string): boolean {
  const wanted = parts(filter);
  return wanted.length === 0 || wanted.some((part) => matches(id, part));
}

export function includesOpenStreams(filter: string): boolean {
  return includesStep(filter, OPEN_STREAMS_ID);
}
