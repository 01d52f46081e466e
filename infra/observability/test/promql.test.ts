// The reader the metric-name checks rely on: it must find every metric and label an expression
// names, and nothing else (functions, keywords, durations, strings).
import { describe, expect, it } from "vitest";
import { dashboardQueries, exposedMetrics, fillGrafanaVariables, missingFrom, readsOf } from "./promql.ts";

describe("readsOf", () => {
  it("finds metrics with their selectors' labels and the grouping labels, not functions, keywords or durations", () => {
    const reads = readsOf(
      'histogram_quantile(0.99, sum by (le, model) (rate(a_seconds_bucket{model=~"x|y", outcome="ok"}[5m]))) > 5 ' +
        'and on (model) (sum by (model) (increase(b_total[1h] offset 15m)) or vector(0)) / ignoring(cause) group_left c_gauge unless absent(d{job="x",e="1e3"})',
    );
    expect(Object.fromEntries([...reads.metrics].map(([name, labels]) => [name, [...labels].sort()]))).toEqual({
      a_seconds_bucket: ["model", "outcome"],
      b_total: [],
      c_gauge: [],
      d: ["e", "job"],
    });
    expect([...reads.groupingLabels].sort()).toEqual(["cause", "le", "model"]);
  });

  it("reads Grafana's variables as values", () => {
    expect(fillGrafanaVariables('rate(x{model=~"$model", u=~"${upstream}"}[$__rate_interval])')).toBe('rate(x{model=~".*", u=~".*"}[5m])');
  });
});

describe("missingFrom", () => {
  const exposed = exposedMetrics(
    [
      "# HELP x_total X.",
      "# TYPE x_total counter",
      'x_total{model="m",app="proxy"} 3',
      "# TYPE h_seconds histogram",
      'h_seconds_bucket{le="1",upstream="u",app="proxy"} 1',
      "# TYPE unseen_total counter",
      "",
    ].join("\n"),
  );

  it("accepts metrics, histogram series and labels the apps expose", () => {
    expect(missingFrom({ source: "q", expr: 'sum by (model) (rate(x_total{model="m", instance="i"}[5m])) + histogram_quantile(0.5, sum by (le, upstream) (rate(h_seconds_bucket[5m]))) + h_seconds_count * 0 + unseen_total{anything="x"}' }, exposed)).toEqual([]);
  });

  it("names a metric no app exposes, a label a metric does not have, and a grouping label none has", () => {
    expect(missingFrom({ source: "q", expr: 'sum by (cause) (rate(x_total{result="ok"}[5m])) + y_total' }, exposed)).toEqual([
      "q: metric x_total has no label result (it has app, model)",
      "q: metric y_total is exposed by no app",
      "q: no metric of the query has the label cause it groups by",
    ]);
    expect(missingFrom({ source: "q", expr: "sum by (cause) (rate(x_total[5m]))" }, exposed)).toEqual(["q: no metric of the query has the label cause it groups by"]);
  });
});

describe("dashboardQueries", () => {
  it("reads panels inside rows, and query variables", () => {
    const queries = dashboardQueries({
      panels: [{ title: "row", type: "row", panels: [{ title: "p", targets: [{ refId: "A", expr: "rate(x_total[$__rate_interval])" }] }] }],
      templating: { list: [{ name: "model", type: "query", query: { query: "label_values(x_total, model)" } }, { name: "datasource", type: "datasource", query: "prometheus" }] },
    });
    expect(queries).toEqual([
      { source: 'panel "p" A', expr: "rate(x_total[5m])" },
      { source: 'variable "model" (label model)', expr: "count by (model) (x_total)" },
    ]);
  });
});
