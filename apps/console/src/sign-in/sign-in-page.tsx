import { useState, type FormEvent } from "react";
import { createApiClient } from "../api/api-client.ts";
import type { VendorToken } from "../api/types.ts";
import { vendorApi } from "../api/vendor-api.ts";
import { ErrorBanner } from "../components/error-banner.tsx";
import { Field } from "../components/field.tsx";
import styles from "./sign-in-page.module.css";

const ignore = () => undefined;

/**
 * Sign-in with a vendor token. The token is checked with GET /api/token (any valid token may call
 * it) before the session keeps it, and its answer, the token's vendor and scopes, goes into the
 * session; a bad or revoked token shows the API's message.
 */
export function SignInPage(props: { onSignedIn(token: string, identity: VendorToken): void; notice: string | null }) {
  const [token, setToken] = useState("");
  const [error, setError] = useState<unknown>(null);
  const [checking, setChecking] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const candidate = token.trim();
    if (!candidate) return;
    setChecking(true);
    setError(null);
    try {
      const identity = await vendorApi.token(createApiClient(candidate, { onUnauthorized: ignore, onMissingScope: ignore }));
      props.onSignedIn(candidate, identity);
    } catch (failure) {
      setError(failure);
      setChecking(false);
    }
  };

  return (
    <main className={styles.page}>
      <form className={`card ${styles.form}`} onSubmit={submit} aria-describedby="sign-in-about">
        <h1>Gateway console</h1>
        <p id="sign-in-about" className="muted">
          Sign in with your vendor token (<code>vt_…</code>). It stays in this browser tab only and is forgotten when the tab closes.
        </p>
        {props.notice ? (
          <p className={styles.notice} role="status">
            {props.notice}
          </p>
        ) : null}
        <Field label="Vendor token">
          {(id) => (
            <input
              id={id}
              type="password"
              name="vendor-token"
              autoComplete="off"
              spellCheck={false}
              value={token}
              onChange={(event) => setToken(event.target.value)}
              required
              autoFocus
            />
          )}
        </Field>
        <ErrorBanner error={error} />
        <button type="submit" className="primary" disabled={checking}>
          {checking ? "Checking…" : "Sign in"}
        </button>
      </form>
    </main>
  );
}
