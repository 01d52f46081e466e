import { useState, type FormEvent } from "react";
import type { Billing, BudgetPeriod, Customer } from "../api/types.ts";
import { vendorApi, type CustomerChanges } from "../api/vendor-api.ts";
import { Dialog } from "../components/dialog.tsx";
import { ErrorBanner } from "../components/error-banner.tsx";
import { Field } from "../components/field.tsx";
import { useSession } from "../session/session-context.tsx";
import { amountForInput, amountOrNull, budgetOrNull, BUDGET_PERIODS } from "../keys/key-form-values.ts";
import styles from "../keys/key-dialogs.module.css";

/** Create a customer (name, email, postpaid or prepaid, a budget over all its keys), or edit one. */
export function CustomerFormDialog(props: { customer?: Customer; onClose(): void; onSaved(customer: Customer): void }) {
  const { api } = useSession();
  const editing = props.customer;
  const [name, setName] = useState(editing?.name ?? "");
  const [email, setEmail] = useState(editing?.email ?? "");
  const [billing, setBilling] = useState<Billing>(editing?.billing ?? "postpaid");
  const [budgetLimit, setBudgetLimit] = useState(amountForInput(editing?.budget?.limit ?? null));
  const [budgetPeriod, setBudgetPeriod] = useState<BudgetPeriod>(editing?.budget?.period ?? "month");
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSaving(true);
    setError(null);
    try {
      const budget = budgetOrNull(budgetLimit, budgetPeriod);
      let saved: Customer;
      if (editing) {
        const changes: CustomerChanges = {};
        if (name.trim() !== editing.name) changes.name = name.trim();
        if (email.trim() !== (editing.email ?? "")) changes.email = amountOrNull(email);
        if (JSON.stringify(budget) !== JSON.stringify(editing.budget ? budgetOrNull(amountForInput(editing.budget.limit), editing.budget.period) : null)) changes.budget = budget;
        saved = Object.keys(changes).length > 0 ? await vendorApi.updateCustomer(api, editing.id, changes) : editing;
      } else {
        saved = await vendorApi.createCustomer(api, { name: name.trim(), ...(email.trim() ? { email: email.trim() } : {}), billing, budget });
      }
      props.onSaved(saved);
    } catch (failure) {
      setError(failure);
      setSaving(false);
    }
  };

  return (
    <Dialog title={editing ? `Edit ${editing.name}` : "Create customer"} onClose={props.onClose}>
      <form className={styles.form} onSubmit={submit}>
        <Field label="Name">{(id) => <input id={id} value={name} maxLength={200} required onChange={(event) => setName(event.target.value)} data-autofocus />}</Field>
        <Field label="Email">{(id) => <input id={id} type="email" value={email} onChange={(event) => setEmail(event.target.value)} placeholder="billing@example.com" />}</Field>
        {editing ? null : (
          <Field label="Billing" hint="Prepaid: the customer's keys draw on its wallet balance.">
            {(id, hint) => (
              <select id={id} aria-describedby={hint} value={billing} onChange={(event) => setBilling(event.target.value as Billing)}>
                <option value="postpaid">Postpaid</option>
                <option value="prepaid">Prepaid (wallet)</option>
              </select>
            )}
          </Field>
        )}
        <div className={styles.pair}>
          <Field label="Budget (USD)" hint="Spend of all its keys per period; blank for none.">
            {(id, hint) => <input id={id} aria-describedby={hint} inputMode="decimal" placeholder="50.00" value={budgetLimit} onChange={(event) => setBudgetLimit(event.target.value)} />}
          </Field>
          <Field label="Budget period">
            {(id) => (
              <select id={id} value={budgetPeriod} onChange={(event) => setBudgetPeriod(event.target.value as BudgetPeriod)}>
                {BUDGET_PERIODS.map((period) => (
                  <option key={period.value} value={period.value}>
                    {period.label}
                  </option>
                ))}
              </select>
            )}
          </Field>
        </div>
        <ErrorBanner error={error} />
        <div className={styles.actions}>
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={saving}>
            {saving ? "Saving…" : editing ? "Save changes" : "Create customer"}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
