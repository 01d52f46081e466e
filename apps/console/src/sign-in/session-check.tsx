import { ErrorBanner } from "../components/error-banner.tsx";
import { Loading } from "../components/loading.tsx";
import type { Restoring } from "../session/use-session-state.ts";
import styles from "./sign-in-page.module.css";

/**
 * After a reload, while the kept token's scopes are read again: nothing they govern is shown yet.
 * A failure other than a 401 (the gateway unreachable, a 503) can be retried.
 */
export function SessionCheck(props: { restoring: Restoring }) {
  const { error, retry, signOut } = props.restoring;
  return (
    <main className={styles.page}>
      <div className={`card ${styles.form}`}>
        <h1>Gateway console</h1>
        {error ? (
          <>
            <ErrorBanner error={error} />
            <div className={styles.actions}>
              <button type="button" className="primary" onClick={retry}>
                Try again
              </button>
              <button type="button" onClick={signOut}>
                Sign out
              </button>
            </div>
          </>
        ) : (
          <Loading label="Checking your vendor token…" />
        )}
      </div>
    </main>
  );
}
