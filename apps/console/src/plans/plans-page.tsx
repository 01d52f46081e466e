import { useState, type FormEvent } from "react";
import type { BudgetPeriod, Plan, PlanLimit, PlanWindow } from "../api/types.ts";
import { vendorApi } from "../api/vendor-api.ts";
import { DataTable, type Column } from "../components/data-table.tsx";
import { Dialog } from "../components/dialog.tsx";
import { EmptyState } from "../components/empty-state.tsx";
import { ErrorBanner } from "../components/error-banner.tsx";
import { Field } from "../components/field.tsx";
import { Loading } from "../components/loading.tsx";
import pageStyles from "../components/page.module.css";
import { Pager } from "../components/pager.tsx";
import { ScopeNotice } from "../components/scope-notice.tsx";
import { count, usd } from "../format.ts";
import { useCursorPages } from "../hooks/use-cursor-pages.ts";
import { useResource } from "../hooks/use-resource.ts";
import { useSession } from "../session/session-context.tsx";
import dialogStyles from "../keys/key-dialogs.module.css";
import styles from "./plans.module.css";

const PAGE_SIZE = 20;
const WINDOWS: { value: PlanWindow; label: string }[] = [
  { value: "5h", label: "5 hours" },
  { value: "day", label: "Day" },
  { value: "week", label: "Week" },
  { value: "month", label: "Month" },
];

/** "5h: 200 requests, $5.00" per window. */
export function limitsText(limits: PlanLimit[]): string {
  if (limits.length === 0) return "No limits";
  return limits
    .map((limit) => {
      const parts = [limit.requests != null ? `${count(limit.requests)} requests` : null, limit.usd != null ? usd(limit.usd) : null].filter(Boolean);
      return `${limit.window}: ${parts.join(", ")}`;
    })
    .join(" · ");
}

const columns: Column<Plan>[] = [
  { header: "Plan", cell: (plan) => <strong>{plan.name}</strong> },
  { header: "Price", cell: (plan) => `${usd(plan.price, "$0.00")} / ${plan.period}`, numeric: true },
  { header: "Windows", cell: (plan) => <span data-testid="plan-limits">{limitsText(plan.limits)}</span> },
  { header: "Models", cell: (plan) => (plan.models && plan.models.length > 0 ? plan.models.join(", ") : "Every model of the key's server option") },
];

interface WindowRow {
  window: PlanWindow;
  requests: string;
  usd: string;
}

/** A plan: a price per period, rolling windows of requests and/or USD, and optionally a list of models. */
function PlanCreateDialog(props: { onClose(): void; onCreated(): void }) {
  const { api } = useSession();
  const options = useResource(() => vendorApi.serverOptions(api), "server-options");
  const [name, setName] = useState("");
  const [price, setPrice] = useState("");
  const [period, setPeriod] = useState<BudgetPeriod>("month");
  const [rows, setRows] = useState<WindowRow[]>([{ window: "5h", requests: "", usd: "" }]);
  const [models, setModels] = useState<string[]>([]);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const allModels = [...new Set((options.data?.data ?? []).flatMap((option) => option.models))].sort();

  const setRow = (index: number, patch: Partial<WindowRow>) => setRows(rows.map((row, at) => (at === index ? { ...row, ...patch } : row)));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSaving(true);
    setError(null);
    try {
      const limits: PlanLimit[] = rows
        .filter((row) => row.requests.trim() !== "" || row.usd.trim() !== "")
        .map((row) => ({ window: row.window, ...(row.requests.trim() ? { requests: Number(row.requests.trim()) } : {}), ...(row.usd.trim() ? { usd: row.usd.trim() } : {}) }));
      await vendorApi.createPlan(api, { name: name.trim(), price: price.trim(), period, limits, ...(models.length > 0 ? { models } : {}) });
      props.onCreated();
    } catch (failure) {
      setError(failure);
      setSaving(false);
    }
  };

  return (
    <Dialog title="Create plan" onClose={props.onClose} wide>
      <form className={dialogStyles.form} onSubmit={submit}>
        <Field label="Name">{(id) => <input id={id} required maxLength={200} value={name} onChange={(event) => setName(event.target.value)} placeholder="Coding plan" data-autofocus />}</Field>
        <div className={dialogStyles.pair}>
          <Field label="Price (USD)">{(id) => <input id={id} required inputMode="decimal" placeholder="20.00" value={price} onChange={(event) => setPrice(event.target.value)} />}</Field>
          <Field label="Billing period">
            {(id) => (
              <select id={id} value={period} onChange={(event) => setPeriod(event.target.value as BudgetPeriod)}>
                <option value="day">Day</option>
                <option value="week">Week</option>
                <option value="month">Month</option>
              </select>
            )}
          </Field>
        </div>
        <fieldset className={styles.windows}>
          <legend>Rolling windows (requests and/or USD; blank for no limit)</legend>
          {rows.map((row, index) => (
            <div key={index} className={styles.windowRow} data-testid="plan-window">
              <Field label={`Window ${index + 1}`}>
                {(id) => (
                  <select id={id} value={row.window} onChange={(event) => setRow(index, { window: event.target.value as PlanWindow })}>
                    {WINDOWS.map((window) => (
                      <option key={window.value} value={window.value}>
                        {window.label}
                      </option>
                    ))}
                  </select>
                )}
              </Field>
              <Field label={`Requests ${index + 1}`}>
                {(id) => <input id={id} type="number" min={1} step={1} value={row.requests} onChange={(event) => setRow(index, { requests: event.target.value })} />}
              </Field>
              <Field label={`USD ${index + 1}`}>{(id) => <input id={id} inputMode="decimal" placeholder="5.00" value={row.usd} onChange={(event) => setRow(index, { usd: event.target.value })} />}</Field>
              <button type="button" className={styles.remove} aria-label={`Remove window ${index + 1}`} onClick={() => setRows(rows.filter((_, at) => at !== index))}>
                Remove
              </button>
            </div>
          ))}
          <div>
            <button type="button" onClick={() => setRows([...rows, { window: WINDOWS.find((window) => !rows.some((row) => row.window === window.value))?.value ?? "day", requests: "", usd: "" }])}>
              Add window
            </button>
          </div>
        </fieldset>
        {allModels.length > 0 ? (
          <fieldset className={pageStyles.checks}>
            <legend>Models (none checked: every model of the key's server option)</legend>
            {allModels.map((model) => (
              <label key={model}>
                <input type="checkbox" checked={models.includes(model)} onChange={(event) => setModels(event.target.checked ? [...models, model] : models.filter((chosen) => chosen !== model))} />
                {model}
              </label>
            ))}
          </fieldset>
        ) : null}
        <ErrorBanner error={options.error} />
        <ErrorBanner error={error} />
        <div className={dialogStyles.actions}>
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={saving}>
            {saving ? "Creating…" : "Create plan"}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** The vendor's plans (contract section 19): what a customer can subscribe to. */
export function PlansPage() {
  const { api, can } = useSession();
  const pages = useCursorPages("plans");
  const [creating, setCreating] = useState(false);
  const readable = can("customers:read");
  const list = useResource(() => vendorApi.listPlans(api, { limit: PAGE_SIZE, cursor: pages.cursor }), JSON.stringify([pages.cursor]), readable);
  const plans = list.data?.data ?? [];
  return (
    <>
      <div className={pageStyles.heading}>
        <h1>Plans</h1>
        {can("plans:write") ? (
          <button type="button" className="primary" onClick={() => setCreating(true)}>
            Create plan
          </button>
        ) : null}
      </div>
      {!readable ? <ScopeNotice scope="customers:read" /> : null}
      {readable ? <ErrorBanner error={list.error} /> : null}
      {readable && list.loading && !list.data ? <Loading label="Loading plans…" /> : null}
      {list.data && plans.length === 0 ? <EmptyState title="No plans yet.">A plan holds a customer's keys to rolling windows of requests or spend.</EmptyState> : null}
      {plans.length > 0 ? <DataTable caption="Plans" columns={columns} rows={plans} rowKey={(plan) => plan.id} testId="plans-table" /> : null}
      <Pager
        label="Plans"
        pageNumber={pages.pageNumber}
        hasPrevious={pages.hasPrevious}
        hasMore={Boolean(list.data?.has_more && list.data.next_cursor)}
        onPrevious={pages.previous}
        onNext={() => list.data?.next_cursor && pages.next(list.data.next_cursor)}
      />
      {creating ? (
        <PlanCreateDialog
          onClose={() => setCreating(false)}
          onCreated={() => {
            setCreating(false);
            list.reload();
          }}
        />
      ) : null}
    </>
  );
}
