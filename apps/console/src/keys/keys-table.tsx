import type { ApiKey } from "../api/types.ts";
import { DataTable, type Column } from "../components/data-table.tsx";
import { StatusBadge } from "../components/status-badge.tsx";
import { count, dateTime, usd } from "../format.ts";
import { KeyActions, type KeyAction } from "./key-actions.tsx";
import styles from "./keys.module.css";
import { PageLink } from "../router/page-link.tsx";

function budgetText(budget: ApiKey["budget"]): string {
  return budget ? `${usd(budget.used)} of ${usd(budget.limit)} / ${budget.period}` : "None";
}

/** The vendor's keys, one row (or, on a phone, one card) each, with their actions when the token may take any. */
export function KeysTable(props: { keys: ApiKey[]; busyId: string | null; onAction(action: KeyAction, key: ApiKey): void; withActions: boolean }) {
  const columns: Column<ApiKey>[] = [
    {
      header: "Key",
      cell: (key) => (
        <div className={styles.keyCell}>
          <PageLink page="keys" detail={key.id} aria-label={`Open ${key.name || key.prefix}`}>
            <strong>{key.name || "Unnamed key"}</strong>
          </PageLink>
          <code className="muted">{key.prefix}…</code>
          <code className={`muted ${styles.id}`}>{key.id}</code>
        </div>
      ),
    },
    { header: "Status", cell: (key) => <StatusBadge status={key.status} /> },
    { header: "Server option", cell: (key) => key.server_option },
    { header: "Quota", cell: (key) => <span data-testid="quota">{usd(key.quota)}</span>, numeric: true },
    { header: "Budget", cell: (key) => budgetText(key.budget) },
    { header: "Rate limits", cell: (key) => `${count(key.rate_limits.rpm, "∞")} rpm · ${count(key.rate_limits.tpm, "∞")} tpm` },
    { header: "Expires", cell: (key) => dateTime(key.expires_at) },
    { header: "Last used", cell: (key) => dateTime(key.last_used_at) },
  ];
  if (props.withActions) columns.push({ header: "Actions", cell: (key) => <KeyActions apiKey={key} busy={props.busyId === key.id} onAction={props.onAction} /> });
  return <DataTable caption="API keys" columns={columns} rows={props.keys} rowKey={(key) => key.id} testId="keys-table" />;
}
