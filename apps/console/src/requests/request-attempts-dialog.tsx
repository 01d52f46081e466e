import type { RequestAttempt, RequestRow } from "../api/types.ts";
import { DataTable, type Column } from "../components/data-table.tsx";
import { Dialog } from "../components/dialog.tsx";
import { StatusBadge } from "../components/status-badge.tsx";
import { milliseconds } from "../format.ts";
import styles from "./requests.module.css";

interface NumberedAttempt extends RequestAttempt {
  number: number;
}

const columns: Column<NumberedAttempt>[] = [
  { header: "#", cell: (row) => row.number, numeric: true },
  { header: "Upstream", cell: (row) => <code>{row.upstream}</code> },
  { header: "Upstream model", cell: (row) => (row.upstream_model ? <code>{row.upstream_model}</code> : "—") },
  { header: "Cause", cell: (row) => <StatusBadge status={row.cause} /> },
  { header: "HTTP status", cell: (row) => (row.status === null ? "none" : String(row.status)), numeric: true },
  { header: "Duration", cell: (row) => milliseconds(row.duration_ms), numeric: true },
  { header: "First byte", cell: (row) => milliseconds(row.ttfb_ms), numeric: true },
];

/** One request's upstream attempts in order: where it was sent, why each failed over, how long each took. */
export function RequestAttemptsDialog(props: { request: RequestRow; onClose(): void }) {
  const { request } = props;
  const rows = request.attempts.map((attempt, index) => ({ ...attempt, number: index + 1 }));
  return (
    <Dialog title="Upstream attempts" onClose={props.onClose} wide>
      <p className={styles.detail}>
        <code>{request.id}</code> · {request.model} · {request.endpoint}
        {request.stream ? " (stream)" : ""} · <StatusBadge status={request.status} />
      </p>
      {rows.length === 0 ? (
        <p className="muted">This request was recorded without its attempts (before the gateway kept them).</p>
      ) : (
        <DataTable caption={`Upstream attempts of ${request.id}`} columns={columns} rows={rows} rowKey={(row) => String(row.number)} testId="request-attempts" />
      )}
      <div className={styles.dialogActions}>
        <button type="button" onClick={props.onClose} data-autofocus>
          Done
        </button>
      </div>
    </Dialog>
  );
}
