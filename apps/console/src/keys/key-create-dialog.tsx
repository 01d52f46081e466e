import { useState, type FormEvent } from "react";
import { newIdempotencyKey } from "../api/idempotency-key.ts";
import type { ApiKeyWithSecret } from "../api/types.ts";
import { vendorApi } from "../api/vendor-api.ts";
import { Dialog } from "../components/dialog.tsx";
import { ErrorBanner } from "../components/error-banner.tsx";
import { Field } from "../components/field.tsx";
import { Loading } from "../components/loading.tsx";
import { SecretReveal } from "../components/secret-reveal.tsx";
import { fromLocalInput } from "../format.ts";
import { useResource } from "../hooks/use-resource.ts";
import { useSession } from "../session/session-context.tsx";
import { amountOrNull, budgetOrNull, integerOrNull } from "./key-form-values.ts";
import { KeyLimitFields, type LimitValues } from "./key-limit-fields.tsx";
import styles from "./key-dialogs.module.css";

const EMPTY_LIMITS: LimitValues = { quota: "", budgetLimit: "", budgetPeriod: "month", rpm: "", tpm: "", expiresAt: "" };

/** Mint a key on one of the vendor's server options; its plaintext is shown once, with copy. */
export function KeyCreateDialog(props: { onClose(): void; onCreated(): void; customerId?: string }) {
  const { api, can } = useSession();
  const options = useResource(() => vendorApi.serverOptions(api), "server-options");
  // The customer picker (contract section 19): the vendor's customers, when the token may read them.
  const pickCustomer = props.customerId === undefined && can("customers:read");
  const customers = useResource(() => vendorApi.listCustomers(api, { limit: 100 }), "customers-for-key", pickCustomer);
  const [customerId, setCustomerId] = useState(props.customerId ?? "");
  const [serverOption, setServerOption] = useState("");
  const [name, setName] = useState("");
  const [limits, setLimits] = useState(EMPTY_LIMITS);
  const [idempotencyKey] = useState(newIdempotencyKey);
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [created, setCreated] = useState<ApiKeyWithSecret | null>(null);
  const chosenOption = serverOption || options.data?.data[0]?.name || "";

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSubmitting(true);
    setError(null);
    try {
      const key = await vendorApi.createKey(
        api,
        {
          server_option: chosenOption,
          name: name.trim(),
          quota: amountOrNull(limits.quota),
          expires_at: fromLocalInput(limits.expiresAt),
          rate_limits: { rpm: integerOrNull(limits.rpm), tpm: integerOrNull(limits.tpm) },
          metadata: {},
          budget: budgetOrNull(limits.budgetLimit, limits.budgetPeriod),
          ...(customerId ? { customer_id: customerId } : {}),
        },
        idempotencyKey,
      );
      setCreated(key);
      props.onCreated();
    } catch (failure) {
      setError(failure);
    } finally {
      setSubmitting(false);
    }
  };

  if (created) {
    return (
      <Dialog title="Key created" onClose={props.onClose}>
        <p className={styles.summary}>
          <strong>{created.name || "Unnamed key"}</strong> on <strong>{created.server_option}</strong> ({created.prefix}…)
        </p>
        <SecretReveal secret={created.key} label="API key" />
        <div className={styles.actions}>
          <button type="button" className="primary" onClick={props.onClose}>
            Done
          </button>
        </div>
      </Dialog>
    );
  }

  return (
    <Dialog title="Create key" onClose={props.onClose}>
      {options.loading && !options.data ? <Loading label="Loading server options…" /> : null}
      <ErrorBanner error={options.error} />
      <ErrorBanner error={customers.error} />
      <form className={styles.form} onSubmit={submit}>
        <Field label="Server option">
          {(id) => (
            <select id={id} value={chosenOption} onChange={(event) => setServerOption(event.target.value)} required data-autofocus>
              {(options.data?.data ?? []).map((option) => (
                <option key={option.id} value={option.name}>
                  {option.name}
                  {option.description ? ` — ${option.description}` : ""}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Name">
          {(id) => <input id={id} value={name} maxLength={200} onChange={(event) => setName(event.target.value)} placeholder="e.g. customer-42 production" />}
        </Field>
        {pickCustomer ? (
          <Field label="Customer" hint="The key spends within the customer's budget, wallet and plan.">
            {(id, hint) => (
              <select id={id} aria-describedby={hint} value={customerId} onChange={(event) => setCustomerId(event.target.value)}>
                <option value="">None</option>
                {(customers.data?.data ?? []).map((customer) => (
                  <option key={customer.id} value={customer.id}>
                    {customer.name}
                    {customer.email ? ` (${customer.email})` : ""}
                  </option>
                ))}
              </select>
            )}
          </Field>
        ) : null}
        <KeyLimitFields values={limits} onChange={setLimits} />
        <ErrorBanner error={error} />
        <div className={styles.actions}>
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={submitting || !chosenOption}>
            {submitting ? "Creating…" : "Create key"}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
