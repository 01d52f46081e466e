// What the dashboard and the alert rules ask Prometheus for: their PromQL expressions, the metric
// names and label names each one reads, and the metrics an app's `GET /metrics` exposes.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { OBSERVABILITY_DIR } from "./promtool.ts";

export interface Query {
  /** Where it is: the panel's or variable's title, or the alert's name. */
  source: string;
  /** PromQL, Grafana's variables replaced by values Prometheus accepts. */
  expr: string;
}

const KEYWORDS = new Set(["and", "or", "unless", "bool", "offset", "by", "without", "on", "ignoring", "group_left", "group_right", "inf", "nan", "atan2"]);
/** Labels that come from the scrape (or are the histogram's bucket), not from the app. */
export const SCRAPE_LABELS = new Set(["instance", "job", "le", "__name__"]);

/** Grafana's variables as Prometheus sees them once Grafana has filled them in. */
export function fillGrafanaVariables(expr: string): string {
  return expr
    .replace(/\$__(rate_interval|interval|range)\b/g, "5m")
    .replace(/\$\{?(\w+)(?::\w+)?\}?/g, ".*");
}

interface Dashboard {
  panels?: Panel[];
  templating?: { list?: { name: string; type: string; query?: string | { query?: string }; definition?: string }[] };
}
interface Panel {
  title?: string;
  type?: string;
  panels?: Panel[];
  targets?: { expr?: string; refId?: string }[];
}

/** The dashboard's queries: every panel target (rows' nested panels too) and every query variable (`label_values(metric, label)` read as `count by (label) (metric)`). */
export function dashboardQueries(dashboard: Dashboard = readDashboard()): Query[] {
  const queries: Query[] = [];
  const walk = (panels: Panel[]) => {
    for (const panel of panels) {
      if (panel.panels) walk(panel.panels);
      for (const target of panel.targets ?? []) {
        if (target.expr) queries.push({ source: `panel "${panel.title}" ${target.refId ?? ""}`.trim(), expr: fillGrafanaVariables(target.expr) });
      }
    }
  };
  walk(dashboard.panels ?? []);
  for (const variable of dashboard.templating?.list ?? []) {
    if (variable.type !== "query") continue;
    const text = typeof variable.query === "string" ? variable.query : variable.query?.query ?? variable.definition ?? "";
    const labelValues = /^label_values\(\s*(.+?)\s*,\s*(\w+)\s*\)$/.exec(text.trim());
    if (labelValues) queries.push({ source: `variable "${variable.name}" (label ${labelValues[2]})`, expr: `count by (${labelValues[2]}) (${fillGrafanaVariables(labelValues[1]!)})` });
    else queries.push({ source: `variable "${variable.name}"`, expr: fillGrafanaVariables(text) });
  }
  return queries;
}

export function readDashboard(): Dashboard {
  return JSON.parse(readFileSync(join(OBSERVABILITY_DIR, "dashboard.json"), "utf8")) as Dashboard;
}

/** The alert rules' expressions. */
export function alertQueries(): Query[] {
  const file = parse(readFileSync(join(OBSERVABILITY_DIR, "alerts.yaml"), "utf8")) as { groups: { rules: { alert?: string; record?: string; expr: string }[] }[] };
  return file.groups.flatMap((group) => group.rules).map((rule) => ({ source: `alert ${rule.alert ?? rule.record}`, expr: rule.expr }));
}

/** What one expression reads: each metric name with the label names its own selector matches on, and the labels it groups or joins by. */
export interface ExprReads {
  metrics: Map<string, Set<string>>;
  groupingLabels: Set<string>;
}

export function readsOf(expr: string): ExprReads {
  // Strings first (they may hold anything), then comments.
  let text = expr.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""').replace(/#[^\n]*/g, "");
  const metrics = new Map<string, Set<string>>();
  const groupingLabels = new Set<string>();
  // Grouping and join modifiers: `by (a, b)`, `on (a)`, `group_left (c)`, ...
  text = text.replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)/g, (_all, _modifier: string, labels: string) => {
    for (const label of labels.split(",").map((value) => value.trim()).filter(Boolean)) groupingLabels.add(label);
    return " ";
  });
  // Range and subquery brackets.
  text = text.replace(/\[[^\]]*\]/g, " ");
  // A metric with its selector: `name{a="x", b=~"y"}`; a bare selector `{__name__="x"}` is not used here.
  text = text.replace(/(?<![\w:.])([a-zA-Z_:][\w:]*)\s*\{([^}]*)\}/g, (all, name: string, matchers: string) => {
    const labels = new Set([...matchers.matchAll(/([a-zA-Z_]\w*)\s*(?:=~|!~|!=|=)/g)].map((match) => match[1]!));
    const known = metrics.get(name) ?? new Set<string>();
    for (const label of labels) known.add(label);
    metrics.set(name, known);
    return " ";
  });
  text = text.replace(/\{[^}]*\}/g, " ");
  // What is left: functions (followed by a parenthesis), keywords, numbers and durations, and bare metric names.
  for (const match of text.matchAll(/(?<![\w:.])([a-zA-Z_:][\w:]*)(\s*\()?/g)) {
    const [, name, call] = match;
    if (call || KEYWORDS.has(name!.toLowerCase())) continue;
    if (!metrics.has(name!)) metrics.set(name!, new Set());
  }
  return { metrics, groupingLabels };
}

/** One app's exposition: each metric name a query may use (a histogram's `_bucket`, `_sum`, `_count` too) with the label names of its series. */
export function exposedMetrics(exposition: string): Map<string, Set<string>> {
  const exposed = new Map<string, Set<string>>();
  const add = (name: string) => {
    if (!exposed.has(name)) exposed.set(name, new Set());
    return exposed.get(name)!;
  };
  for (const line of exposition.split("\n")) {
    const type = /^# TYPE (\S+) (\S+)/.exec(line);
    if (type) {
      const [, name, kind] = type;
      add(name!);
      if (kind === "histogram") for (const suffix of ["_bucket", "_sum", "_count"]) add(name! + suffix);
      if (kind === "summary") for (const suffix of ["_sum", "_count"]) add(name! + suffix);
      continue;
    }
    if (line.startsWith("#") || line.trim() === "") continue;
    const series = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s/.exec(line);
    if (!series) continue;
    const labels = add(series[1]!);
    for (const label of (series[2] ?? "").matchAll(/([a-zA-Z_]\w*)="/g)) labels.add(label[1]!);
  }
  return exposed;
}

/** Merges several apps' expositions (a metric's labels: the union over the apps that expose it). */
export function mergeExposed(all: Map<string, Set<string>>[]): Map<string, Set<string>> {
  const merged = new Map<string, Set<string>>();
  for (const exposed of all) {
    for (const [name, labels] of exposed) {
      const into = merged.get(name) ?? new Set<string>();
      for (const label of labels) into.add(label);
      merged.set(name, into);
    }
  }
  return merged;
}

/**
 * What a query reads that no app exposes: metric names missing from `exposed`, label names its
 * selector matches that no series of that metric carries, and grouping labels none of its metrics
 * carries. Labels are only checked on metrics that have series (a labelled metric nothing has
 * observed yet shows its name alone).
 */
export function missingFrom(query: Query, exposed: Map<string, Set<string>>): string[] {
  const { metrics, groupingLabels } = readsOf(query.expr);
  const problems: string[] = [];
  const labelsOfQuery = new Set<string>();
  let allHaveSeries = true;
  for (const [name, labels] of metrics) {
    const known = exposed.get(name);
    if (!known) {
      problems.push(`${query.source}: metric ${name} is exposed by no app`);
      continue;
    }
    if (known.size === 0) allHaveSeries = false;
    for (const label of known) labelsOfQuery.add(label);
    for (const label of labels) {
      if (SCRAPE_LABELS.has(label) || known.size === 0) continue;
      if (!known.has(label)) problems.push(`${query.source}: metric ${name} has no label ${label} (it has ${[...known].sort().join(", ")})`);
    }
  }
  if (allHaveSeries && metrics.size > 0) {
    for (const label of groupingLabels) {
      if (!SCRAPE_LABELS.has(label) && !labelsOfQuery.has(label)) problems.push(`${query.source}: no metric of the query has the label ${label} it groups by`);
    }
  }
  return problems;
}
