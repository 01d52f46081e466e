import { useState, type FormEvent } from "react";
import type { ApiKey } from "../api/types.ts";
import { vendorApi, type KeyChanges } from "../api/vendor-api.ts";
import { Dialog } from "../components/dialog.tsx";
import { ErrorBanner } from "../components/error-banner.tsx";
import { Field } from "../components/field.tsx";
import { fromLocalInput, toLocalInput } from "../format.ts";
import { useSession } from "../session/session-context.tsx";
import { amountForInput, amountOrNull, budgetOrNull, integerOrNull } from "./key-form-values.ts";
import { KeyLimitFields, type LimitValues } from "./key-limit-fields.tsx";
import styles from "./key-dialogs.module.css";

function limitsOf(key: ApiKey): LimitValues {
  return {
    quota: amountForInput(key.quota),
    budgetLimit: amountForInput(key.budget?.limit ?? null),
    budgetPeriod: key.budget?.period ?? "month",
    rpm: key.rate_limits.rpm === null ? "" : String(key.rate_limits.rpm),
    tpm: key.rate_limits.tpm === null ? "" : String(key.rate_limits.tpm),
    expiresAt: toLocalInput(key.expires_at),
  };
}

/** Only what the form changed, so an untouched field never overwrites a concurrent change. */
function changesBetween(before: LimitValues & { name: string }, after: LimitValues & { name: string }): KeyChanges {
  const changes: KeyChanges = {};
  if (after.name !== before.name) changes.name = after.name.trim();
  if (after.quota !== before.quota) changes.quota = amountOrNull(after.quota);
  if (after.budgetLimit !== before.budgetLimit || after.budgetPeriod !== before.budgetPeriod) changes.budget = budgetOrNull(after.budgetLimit, after.budgetPeriod);
  if (after.rpm !== before.rpm || after.tpm !== before.tpm) {
    changes.rate_limits = {};
    if (after.rpm !== before.rpm) changes.rate_limits.rpm = integerOrNull(after.rpm);
    if (after.tpm !== before.tpm) changes.rate_limits.tpm = integerOrNull(after.tpm);
  }
  if (after.expiresAt !== before.expiresAt) changes.expires_at = fromLocalInput(after.expiresAt);
  return changes;
}

/** PATCH a key's name, quota, budget, rate limits and expiry. */
export function KeyEditDialog(props: { apiKey: ApiKey; onClose(): void; onSaved(): void }) {
  const { api } = useSession();
  const [initial] = useState(() => ({ ...limitsOf(props.apiKey), name: props.apiKey.name }));
  const [name, setName] = useState(initial.name);
  const [limits, setLimits] = useState<LimitValues>(initial);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const changes = changesBetween(initial, { ...limits, name });
    if (Object.keys(changes).length === 0) {
      props.onClose();
      return;
    }
    setSaving(true);
    setError(null);
    try {
      await vendorApi.updateKey(api, props.apiKey.id, changes);
      props.onSaved();
    } catch (failure) {
      setError(failure);
      setSaving(false);
    }
  };

  return (
    <Dialog title={`Edit ${props.apiKey.name || props.apiKey.prefix}`} onClose={props.onClose}>
      <form className={styles.form} onSubmit={submit}>
        <Field label="Name">{(id) => <input id={id} value={name} maxLength={200} onChange={(event) => setName(event.target.value)} data-autofocus />}</Field>
        <KeyLimitFields values={limits} onChange={setLimits} />
        <ErrorBanner error={error} />
        <div className={styles.actions}>
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={saving}>
            {saving ? "Saving…" : "Save changes"}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
