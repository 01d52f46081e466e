import type { BudgetPeriod } from "../api/types.ts";
import { Field } from "../components/field.tsx";
import { BUDGET_PERIODS } from "./key-form-values.ts";
import styles from "./key-dialogs.module.css";

export interface LimitValues {
  quota: string;
  budgetLimit: string;
  budgetPeriod: BudgetPeriod;
  rpm: string;
  tpm: string;
  expiresAt: string;
}

/**
 * The limits a key can have, shared by the create and edit dialogs: lifetime quota, periodic
 * budget, rate limits and expiry. Blank means none (or the server option's default rate).
 */
export function KeyLimitFields(props: { values: LimitValues; onChange(values: LimitValues): void; showQuota?: boolean }) {
  const { values } = props;
  const set = (patch: Partial<LimitValues>) => props.onChange({ ...values, ...patch });
  return (
    <>
      {props.showQuota !== false ? (
        <Field label="Quota (USD)" hint="Lifetime spending limit; blank for unlimited.">
          {(id, hint) => <input id={id} aria-describedby={hint} inputMode="decimal" placeholder="10.00" value={values.quota} onChange={(event) => set({ quota: event.target.value })} />}
        </Field>
      ) : null}
      <div className={styles.pair}>
        <Field label="Budget (USD)" hint="Spend per period; blank for none.">
          {(id, hint) => (
            <input id={id} aria-describedby={hint} inputMode="decimal" placeholder="5.00" value={values.budgetLimit} onChange={(event) => set({ budgetLimit: event.target.value })} />
          )}
        </Field>
        <Field label="Budget period">
          {(id) => (
            <select id={id} value={values.budgetPeriod} onChange={(event) => set({ budgetPeriod: event.target.value as BudgetPeriod })}>
              {BUDGET_PERIODS.map((period) => (
                <option key={period.value} value={period.value}>
                  {period.label}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <div className={styles.pair}>
        <Field label="Requests per minute" hint="Blank: the server option's default.">
          {(id, hint) => <input id={id} aria-describedby={hint} type="number" min={1} step={1} value={values.rpm} onChange={(event) => set({ rpm: event.target.value })} />}
        </Field>
        <Field label="Tokens per minute" hint="Blank: the server option's default.">
          {(id, hint) => <input id={id} aria-describedby={hint} type="number" min={1} step={1} value={values.tpm} onChange={(event) => set({ tpm: event.target.value })} />}
        </Field>
      </div>
      <Field label="Expires" hint="Blank: never. Your local time.">
        {(id, hint) => <input id={id} aria-describedby={hint} type="datetime-local" value={values.expiresAt} onChange={(event) => set({ expiresAt: event.target.value })} />}
      </Field>
    </>
  );
}
