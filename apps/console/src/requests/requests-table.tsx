import type { RequestRow } from "../api/types.ts";
import { DataTable, type Column } from "../components/data-table.tsx";
import { ShortId } from "../components/short-id.tsx";
import { StatusBadge } from "../components/status-badge.tsx";
import { cacheWrites, count, milliseconds, usd } from "../format.ts";
import type { KeyName } from "../hooks/use-key-names.ts";
import { PageLink } from "../router/page-link.tsx";
import styles from "./requests.module.css";

/** "Nov 27, 14:35:02" in the reader's zone: a log row needs the seconds, not the year. */
function shortTime(iso: string): string {
  return new Date(iso).toLocaleString(undefined, { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", second: "2-digit", hour12: false });
}

/** "1 attempt", "2 attempts (failover)". */
function attemptsLabel(row: RequestRow): string {
  const attempts = row.attempts.length;
  return attempts === 1 ? "1 attempt" : `${attempts} attempts (failover)`;
}

/**
 * The request log, newest first: one row per request as the ledger recorded it; a row's attempts
 * open in a dialog. Ids are shortened (full value on hover and copy) and keys carry their names,
 * so a row stays readable at 1280 px without scrolling sideways.
 */
export function RequestsTable(props: { rows: RequestRow[]; onShowAttempts(row: RequestRow): void; keyNames?: ReadonlyMap<string, KeyName>; hideKey?: boolean }) {
  const names = props.keyNames ?? new Map<string, KeyName>();
  const columns: Column<RequestRow>[] = [
    {
      header: "Time",
      cell: (row) => (
        <time dateTime={row.created_at} title={new Date(row.created_at).toISOString()} className={styles.time}>
          {shortTime(row.created_at)}
        </time>
      ),
    },
    { header: "Request id", cell: (row) => <ShortId id={row.id} /> },
  ];
  if (!props.hideKey) {
    columns.push({
      header: "Key",
      cell: (row) => {
        const known = names.get(row.key_id);
        return (
          <span className={styles.keyCell} data-testid="request-key">
            {known ? (
              <PageLink page="keys" detail={row.key_id} className={styles.keyName} title={`${known.name || "Unnamed key"} (${row.key_id})`}>
                {known.name || `${known.prefix}…`}
              </PageLink>
            ) : null}
            <ShortId id={row.key_id} />
          </span>
        );
      },
    });
  }
  columns.push(
    {
      header: "Model",
      cell: (row) => (
        <span className={styles.stacked}>
          <span>{row.model}</span>
          <span className={styles.minor}>
            {row.endpoint}
            {row.stream ? " (stream)" : ""}
          </span>
        </span>
      ),
    },
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
    {
      // Input / output on the first line; cache reads / writes and web searches under it, smaller.
      header: "Tokens in / out",
      cell: (row) => (
        <span className={styles.stacked}>
          <span>
            {count(row.input_tokens)} / {count(row.output_tokens)}
            {row.estimated ? " (est.)" : ""}
          </span>
          <span className={styles.minor} title="Cache reads / cache writes">
            cache {count(row.cached_input_tokens)} / {cacheWrites(row.cache_write_tokens, row.cache_write_1h_tokens)}
          </span>
          {row.web_search_requests > 0 ? (
            <span className={styles.minor}>
              {count(row.web_search_requests)} web {row.web_search_requests === 1 ? "search" : "searches"}
            </span>
          ) : null}
        </span>
      ),
      numeric: true,
    },
    { header: "Cost", cell: (row) => usd(row.cost, "$0.00"), numeric: true },
    {
      header: "First byte / total",
      cell: (row) => (
        <span className={styles.stacked}>
          <span>{milliseconds(row.ttfb_ms)}</span>
          <span className={styles.minor}>{milliseconds(row.duration_ms)}</span>
        </span>
      ),
      numeric: true,
    },
  );
  return <DataTable caption="Requests" columns={columns} rows={props.rows} rowKey={(row) => row.id} testId="requests-table" />;
}
