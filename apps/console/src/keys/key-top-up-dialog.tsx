import { useState, type FormEvent } from "react";
import type { ApiKey } from "../api/types.ts";
import { vendorApi } from "../api/vendor-api.ts";
import { Dialog } from "../components/dialog.tsx";
import { ErrorBanner } from "../components/error-banner.tsx";
import { Field } from "../components/field.tsx";
import { usd } from "../format.ts";
import { useSession } from "../session/session-context.tsx";
import styles from "./key-dialogs.module.css";

/** Add to a key's quota atomically (`quota_add`): a concurrent spend cannot be lost. */
export function KeyTopUpDialog(props: { apiKey: ApiKey; onClose(): void; onSaved(): void }) {
  const { api } = useSession();
  const [amount, setAmount] = useState("");
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSaving(true);
    setError(null);
    try {
      await vendorApi.updateKey(api, props.apiKey.id, { quota_add: amount.trim() });
      props.onSaved();
    } catch (failure) {
      setError(failure);
      setSaving(false);
    }
  };

  return (
    <Dialog title={`Top up ${props.apiKey.name || props.apiKey.prefix}`} onClose={props.onClose}>
      <form className={styles.form} onSubmit={submit}>
        <p className={styles.summary}>
          Current quota: <strong>{usd(props.apiKey.quota)}</strong>
        </p>
        <Field label="Amount to add (USD)">
          {(id) => <input id={id} inputMode="decimal" placeholder="5.00" value={amount} onChange={(event) => setAmount(event.target.value)} required data-autofocus />}
        </Field>
        <ErrorBanner error={error} />
        <div className={styles.actions}>
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={saving}>
            {saving ? "Adding…" : "Add to quota"}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
