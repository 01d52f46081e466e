import { ApiError, errorMessage } from "../api/api-error.ts";
import styles from "./notices.module.css";

/** An API error as the envelope's message (contract section 10), announced to screen readers. */
export function ErrorBanner(props: { error: unknown }) {
  if (!props.error) return null;
  const requestId = props.error instanceof ApiError ? props.error.requestId : null;
  return (
    <div className={styles.error} role="alert" data-testid="error">
      <span>{errorMessage(props.error)}</span>
      {requestId ? <span className={styles.requestId}>request {requestId}</span> : null}
    </div>
  );
}
