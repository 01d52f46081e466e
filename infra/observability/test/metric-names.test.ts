// Every metric (and label) that infra/observability/dashboard.json and alerts.yaml ask for is one
// the apps really expose: the proxy, control plane and billing worker run as real processes, get
// traffic through both shapes (streamed and not, billed by the worker), and their GET /metrics is
// read. The dashboard's queries are also valid PromQL (promtool checks them as recording rules).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { alertQueries, dashboardQueries, exposedMetrics, mergeExposed, missingFrom, readDashboard, type Query } from "./promql.ts";
import { promtool } from "./promtool.ts";
import { startMetricsStack, type MetricsStack } from "./stack.ts";

let stack: MetricsStack;
let exposed: Map<string, Set<string>>;
const expositions: Record<string, string> = {};

beforeAll(async () => {
  stack = await startMetricsStack();
  const vendor = (path: string, body: unknown) =>
    fetch(`${stack.proxyUrl}/api${path}`, { method: "POST", headers: { authorization: `Bearer ${stack.vendorToken}`, "content-type": "application/json" }, body: JSON.stringify(body) }).then(async (response) => {
      const json = (await response.json()) as Record<string, unknown>;
      if (!response.ok) throw new Error(`POST /api${path}: ${response.status} ${JSON.stringify(json)}`);
      return json;
    });
  const key = String((await vendor("/keys", { server_option: "standard", name: "observability" })).key);
  const call = async (chat: boolean, stream: boolean) => {
    const messages = [{ role: "user", content: "#sim: chunks=3 hello" }];
    const response = await fetch(`${stack.proxyUrl}${chat ? "/v1/chat/completions" : "/v1/messages"}`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...(chat ? {} : { "anthropic-version": "2023-06-01" }) },
      body: JSON.stringify(chat ? { model: "gpt-4o-mini", messages, stream } : { model: "claude-sonnet-4-5", max_tokens: 64, messages, stream }),
    });
    await response.text();
    expect(response.status).toBe(200);
  };
  for (const chat of [true, false]) for (const stream of [false, true]) await call(chat, stream);
  // The worker's series appear once it has written the ledger rows of these requests.
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const worker = await (await fetch(stack.metricsUrls.billingWorker)).text();
    if (/billing_events_total\{[^}]*outcome="recorded"[^}]*\} [1-9]/.test(worker)) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  for (const [app, url] of Object.entries(stack.metricsUrls)) {
    const response = await fetch(url);
    expect(response.status, `${app} GET /metrics`).toBe(200);
    expositions[app] = await response.text();
  }
  exposed = mergeExposed(Object.values(expositions).map(exposedMetrics));
}, 180_000);
afterAll(async () => stack?.stop());

const scratch = mkdtempSync(join(tmpdir(), "gw-dashboard-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function problems(queries: Query[]): string[] {
  return queries.flatMap((query) => missingFrom(query, exposed));
}

describe("what the dashboard and the alerts read is what the apps expose", () => {
  it("the apps expose the metrics the operations docs rely on", () => {
    expect(expositions.proxy).toContain("gateway_model_requests_total");
    expect(expositions.billingWorker).toContain("billing_queue_waiting");
    expect(expositions.billingWorker).toMatch(/billing_events_total\{[^}]*outcome="recorded"/);
  });

  it("every dashboard query names only metrics and labels the apps expose", () => {
    const queries = dashboardQueries();
    expect(queries.length).toBeGreaterThan(20);
    expect(problems(queries)).toEqual([]);
  });

  it("every alert rule names only metrics and labels the apps expose", () => {
    const queries = alertQueries();
    expect(queries.length).toBeGreaterThan(5);
    expect(problems(queries)).toEqual([]);
  });

  it("the check fails on a metric no app exposes", () => {
    expect(problems([{ source: "probe", expr: "rate(gateway_no_such_metric_total[5m])" }])).toEqual(["probe: metric gateway_no_such_metric_total is exposed by no app"]);
  });
});

describe("infra/observability/dashboard.json", () => {
  const dashboard = readDashboard() as Record<string, unknown> & { templating: { list: { name: string; type: string; query: unknown }[] }; panels: { type: string; datasource?: { uid?: string }; panels?: unknown[] }[] };

  it("is a recent Grafana dashboard with a Prometheus data source variable used by every panel", () => {
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(39);
    expect(dashboard.uid).toBeTruthy();
    expect(dashboard.templating.list).toContainEqual(expect.objectContaining({ name: "datasource", type: "datasource", query: "prometheus" }));
    for (const name of ["model", "upstream"]) expect(dashboard.templating.list.map((variable) => variable.name)).toContain(name);
    for (const panel of dashboard.panels.filter((candidate) => candidate.type !== "row")) expect(panel.datasource?.uid).toBe("${datasource}");
  });

  it("has valid PromQL everywhere (promtool checks each query as a recording rule)", () => {
    const queries = dashboardQueries();
    const rules = { groups: [{ name: "dashboard", rules: queries.map((query, index) => ({ record: `dashboard:query_${index}`, expr: query.expr })) }] };
    writeFileSync(join(scratch, "dashboard-rules.yaml"), stringify(rules));
    const run = promtool(["check", "rules", "dashboard-rules.yaml"], scratch);
    expect(run.status, run.output).toBe(0);
  });
});
