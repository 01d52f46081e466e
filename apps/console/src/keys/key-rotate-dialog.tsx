import { useState, type FormEvent } from "react";
import type { ApiKey, ApiKeyWithSecret } from "../api/types.ts";
import { vendorApi } from "../api/vendor-api.ts";
import { Dialog } from "../components/dialog.tsx";
import { ErrorBanner } from "../components/error-banner.tsx";
import { Field } from "../components/field.tsx";
import { SecretReveal } from "../components/secret-reveal.tsx";
import { useSession } from "../session/session-context.tsx";
import styles from "./key-dialogs.module.css";

/**
 * A new secret for the same key (same id, settings and history). The old secret keeps working
 * for the grace seconds given (0: refused at once); the new one is shown once, with copy.
 */
export function KeyRotateDialog(props: { apiKey: ApiKey; onClose(): void; onRotated(): void }) {
  const { api } = useSession();
  const [grace, setGrace] = useState("0");
  const [rotating, setRotating] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [rotated, setRotated] = useState<ApiKeyWithSecret | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setRotating(true);
    setError(null);
    try {
      setRotated(await vendorApi.rotateKey(api, props.apiKey.id, Number(grace || "0")));
      props.onRotated();
    } catch (failure) {
      setError(failure);
    } finally {
      setRotating(false);
    }
  };

  const title = `Rotate ${props.apiKey.name || props.apiKey.prefix}`;
  if (rotated) {
    return (
      <Dialog title={title} onClose={props.onClose}>
        <SecretReveal secret={rotated.key} label="New API key" />
        <div className={styles.actions}>
          <button type="button" className="primary" onClick={props.onClose}>
            Done
          </button>
        </div>
      </Dialog>
    );
  }

  return (
    <Dialog title={title} onClose={props.onClose}>
      <form className={styles.form} onSubmit={submit}>
        <p className={styles.summary}>The key keeps its id, settings and usage; only its secret changes.</p>
        <Field label="Grace period (seconds)" hint="How long the current secret keeps working, 0 to 86400.">
          {(id, hint) => (
            <input id={id} aria-describedby={hint} type="number" min={0} max={86400} step={1} value={grace} onChange={(event) => setGrace(event.target.value)} data-autofocus />
          )}
        </Field>
        <ErrorBanner error={error} />
        <div className={styles.actions}>
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={rotating}>
            {rotating ? "Rotating…" : "Rotate secret"}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
