import type { RequestRow } from "../api/types.ts";
import { DataTable, type Column } from "../components/data-table.tsx";
import { StatusBadge } from "../components/status-badge.tsx";
import { cacheWrites, count, dateTime, milliseconds, usd } from "../format.ts";
import styles from "./requests.module.css";

/** "1 attempt", "2 attempts (failover)". */
function attemptsLabel(row: RequestRow): string {
  const attempts = row.attempts.length;
  return attempts === 1 ? "1 attempt" : `${attempts} attempts (failover)`;
}

/** The request log, newest first: one row per request as the ledger recorded it; a row's attempts open in a dialog. */
export function RequestsTable(props: { rows: RequestRow[]; onShowAttempts(row: RequestRow): void }) {
  const columns: Column<RequestRow>[] = [
    { header: "Time", cell: (row) => dateTime(row.created_at) },
    { header: "Request id", cell: (row) => <code>{row.id}</code> },
    { header: "Key", cell: (row) => <code>{row.key_id}</code> },
    { header: "Model", cell: (row) => row.model },
    { header: "Endpoint", cell: (row) => `${row.endpoint}${row.stream ? " (stream)" : ""}` },
    {
      // How the request ended, and under it how it got there: its upstream attempts (a dialog).
      header: "Status",
      cell: (row) => (
        <span className={styles.status}>
          <StatusBadge status={row.status} />
          {row.attempts.length > 0 ? (
            <button type="button" className="link" aria-label={`Attempts of ${row.id}`} onClick={() => props.onShowAttempts(row)}>
              {attemptsLabel(row)}
            </button>
          ) : null}
        </span>
      ),
    },
    { header: "Tokens in / out", cell: (row) => `${count(row.input_tokens)} / ${count(row.output_tokens)}${row.estimated ? " (est.)" : ""}`, numeric: true },
    { header: "Cache reads / writes", cell: (row) => `${count(row.cached_input_tokens)} / ${cacheWrites(row.cache_write_tokens, row.cache_write_1h_tokens)}`, numeric: true },
    { header: "Web searches", cell: (row) => count(row.web_search_requests), numeric: true },
    { header: "Cost", cell: (row) => usd(row.cost, "$0.00"), numeric: true },
    { header: "First byte / total", cell: (row) => `${milliseconds(row.ttfb_ms)} / ${milliseconds(row.duration_ms)}`, numeric: true },
  ];
  return <DataTable caption="Requests" columns={columns} rows={props.rows} rowKey={(row) => row.id} testId="requests-table" />;
}
