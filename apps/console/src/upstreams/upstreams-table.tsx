import type { UpstreamHealth } from "../api/types.ts";
import { DataTable, type Column } from "../components/data-table.tsx";
import { StatusBadge } from "../components/status-badge.tsx";
import { count, milliseconds } from "../format.ts";
import styles from "./upstreams.module.css";

/** "http_5xx 3 · timeout 1", most first; "None" when every attempt succeeded. */
function failuresByCause(failures: Record<string, number>): string {
  const causes = Object.entries(failures)
    .filter(([, failed]) => failed > 0)
    .sort(([a, first], [b, second]) => second - first || (a < b ? -1 : 1));
  return causes.length === 0 ? "None" : causes.map(([cause, failed]) => `${cause} ${count(failed)}`).join(" · ");
}

/** Seconds since an instant, for a stale report: "45 s ago", "3 min ago". */
function ago(iso: string, now: number): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  return seconds < 120 ? `${seconds} s ago` : `${Math.round(seconds / 60)} min ago`;
}

/** The circuit when the figures are fresh; otherwise what is known: a stale report's age, or none. */
function State(props: { upstream: UpstreamHealth; now: number }) {
  const { upstream } = props;
  switch (upstream.state) {
    case "reporting":
      return <StatusBadge status={upstream.circuit ?? "closed"} />;
    case "stale":
      return (
        <span className={styles.state}>
          <StatusBadge status="stale" />
          <span className="muted">last report {upstream.reported_at ? ago(upstream.reported_at, props.now) : "unknown"}</span>
        </span>
      );
    case "no_data":
      return <span className="muted">No data</span>;
    default: {
      const unknown: never = upstream.state;
      return <span className="muted">{String(unknown)}</span>;
    }
  }
}

/** Figures only for fresh data: a stale or silent upstream shows dashes, never zeros. */
const fresh = (upstream: UpstreamHealth, text: string) => (upstream.state === "reporting" ? text : "—");

/** Each upstream serving the vendor's models: circuit, traffic, failures by cause, latency. */
export function UpstreamsTable(props: { upstreams: UpstreamHealth[]; now: number }) {
  const columns: Column<UpstreamHealth>[] = [
    { header: "Upstream", cell: (row) => <code>{row.name}</code> },
    { header: "Circuit", cell: (row) => <State upstream={row} now={props.now} /> },
    { header: "Attempts / min", cell: (row) => fresh(row, count(row.attempts)), numeric: true },
    { header: "Failures by cause", cell: (row) => <span data-testid="failures">{fresh(row, failuresByCause(row.failures))}</span> },
    { header: "p50", cell: (row) => fresh(row, milliseconds(row.p50_ms)), numeric: true },
    { header: "p99", cell: (row) => fresh(row, milliseconds(row.p99_ms)), numeric: true },
    { header: "First byte p50", cell: (row) => fresh(row, milliseconds(row.ttfb_p50_ms)), numeric: true },
    { header: "Your models", cell: (row) => <span className={styles.models}>{row.models.join(", ")}</span> },
  ];
  return <DataTable caption="Upstreams" columns={columns} rows={props.upstreams} rowKey={(row) => row.name} testId="upstreams-table" />;
}
