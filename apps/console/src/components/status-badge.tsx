import styles from "./status-badge.module.css";

const TONE: Record<string, string | undefined> = {
  active: styles.ok,
  ok: styles.ok,
  disabled: styles.warn,
  client_aborted: styles.warn,
  revoked: styles.danger,
  error: styles.danger,
  // an upstream's circuit breaker, and its data
  closed: styles.ok,
  half_open: styles.warn,
  open: styles.danger,
  stale: styles.warn,
  // customers, subscriptions, codes, payments and webhook deliveries
  canceled: styles.warn,
  redeemed: styles.warn,
  expired: styles.danger,
  pending: styles.warn,
  succeeded: styles.ok,
  failed: styles.danger,
  // why an upstream attempt failed (an attempt that answered is `ok`)
  http_429: styles.warn,
  circuit_open: styles.warn,
  connect_error: styles.danger,
  timeout: styles.danger,
  http_5xx: styles.danger,
  http_4xx: styles.danger,
  stream_error: styles.danger,
};

/** A key's, a request's or an upstream circuit's status as a coloured label (the word itself carries the meaning). */
export function StatusBadge(props: { status: string }) {
  return <span className={`${styles.badge} ${TONE[props.status] ?? ""}`}>{props.status.replaceAll("_", " ")}</span>;
}
