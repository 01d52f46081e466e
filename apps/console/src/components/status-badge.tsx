import styles from "./status-badge.module.css";

const TONE: Record<string, string | undefined> = {
  active: styles.ok,
  ok: styles.ok,
  disabled: styles.warn,
  client_aborted: styles.warn,
  revoked: styles.danger,
  error: styles.danger,
};

/** A key's or a request's status as a coloured label (the word itself carries the meaning). */
export function StatusBadge(props: { status: string }) {
  return <span className={`${styles.badge} ${TONE[props.status] ?? ""}`}>{props.status.replace("_", " ")}</span>;
}
