import { useState } from "react";
import type { ApiKey, Plan, Subscription } from "../api/types.ts";
import { vendorApi } from "../api/vendor-api.ts";
import { DataTable, type Column } from "../components/data-table.tsx";
import { EmptyState } from "../components/empty-state.tsx";
import { ErrorBanner } from "../components/error-banner.tsx";
import { Field } from "../components/field.tsx";
import { Loading } from "../components/loading.tsx";
import pageStyles from "../components/page.module.css";
import { ScopeNotice } from "../components/scope-notice.tsx";
import { StatusBadge } from "../components/status-badge.tsx";
import { dateTime, usd } from "../format.ts";
import { useResource } from "../hooks/use-resource.ts";
import { KeyCreateDialog } from "../keys/key-create-dialog.tsx";
import { PageLink } from "../router/page-link.tsx";
import { useSession } from "../session/session-context.tsx";
import { CheckoutDialog, GrantCreditsDialog } from "./customer-money-dialogs.tsx";
import { CustomerFormDialog } from "./customer-form-dialog.tsx";
import { CustomerWallet } from "./customer-wallet.tsx";
import { budgetText } from "./customers-page.tsx";

type Open = "edit" | "credits" | "payment" | "key" | null;

const keyColumns: Column<ApiKey>[] = [
  {
    header: "Key",
    cell: (key) => (
      <span className={pageStyles.stack}>
        <PageLink page="keys" detail={key.id}>
          <strong>{key.name || "Unnamed key"}</strong>
        </PageLink>
        <code className="muted">{key.prefix}…</code>
      </span>
    ),
  },
  { header: "Status", cell: (key) => <StatusBadge status={key.status} /> },
  { header: "Server option", cell: (key) => key.server_option },
  { header: "Quota", cell: (key) => usd(key.quota), numeric: true },
  { header: "Last used", cell: (key) => dateTime(key.last_used_at) },
];

/**
 * One customer: its status, billing, balance and budget; its keys; its subscriptions (subscribe
 * to a plan, cancel); money in (grant credits, take a card payment through Stripe Checkout); and
 * its wallet's entries and payments.
 */
export function CustomerPage(props: { customerId: string }) {
  const { api, can } = useSession();
  const readable = can("customers:read");
  const writable = can("customers:write");
  const [open, setOpen] = useState<Open>(null);
  const [planId, setPlanId] = useState("");
  const [busy, setBusy] = useState(false);
  const [actionError, setActionError] = useState<unknown>(null);

  const customer = useResource(() => vendorApi.customer(api, props.customerId), props.customerId, readable);
  const keys = useResource(() => vendorApi.customerKeys(api, props.customerId), `keys-${props.customerId}`, readable && can("keys:read"));
  const subscribing = can("plans:write");
  const plans = useResource(() => vendorApi.listPlans(api, { limit: 100 }), "plans", readable);

  const act = async (action: () => Promise<unknown>, reload: () => void) => {
    setBusy(true);
    setActionError(null);
    try {
      await action();
      reload();
    } catch (failure) {
      setActionError(failure);
    } finally {
      setBusy(false);
    }
  };

  const data = customer.data;
  const active = data?.subscription ?? null;
  const planList: Plan[] = plans.data?.data ?? [];
  const planName = (id: string) => planList.find((plan) => plan.id === id)?.name ?? id;
  const chosenPlan = planId || planList[0]?.id || "";
  const subscriptionColumns: Column<Subscription>[] = [
    { header: "Plan", cell: (subscription) => planName(subscription.plan_id) },
    { header: "Status", cell: (subscription) => <StatusBadge status={subscription.status} /> },
    { header: "Period", cell: (subscription) => `${dateTime(subscription.current_period_start)} – ${dateTime(subscription.current_period_end)}` },
  ];
  if (subscribing) {
    subscriptionColumns.push({
      header: "Actions",
      cell: (subscription) =>
        subscription.status === "active" ? (
          <button
            type="button"
            className={pageStyles.small}
            disabled={busy}
            aria-label={`Cancel subscription to ${planName(subscription.plan_id)}`}
            onClick={() => act(() => vendorApi.cancelSubscription(api, props.customerId, subscription.id), customer.reload)}
          >
            Cancel
          </button>
        ) : (
          <span className="muted">—</span>
        ),
    });
  }

  if (!readable) {
    return (
      <>
        <h1>Customer</h1>
        <ScopeNotice scope="customers:read" />
      </>
    );
  }

  return (
    <>
      <p>
        <PageLink page="customers">← All customers</PageLink>
      </p>
      <div className={pageStyles.heading}>
        <h1>{data?.name ?? "Customer"}</h1>
        {data && writable ? (
          <div className={pageStyles.buttons}>
            <button type="button" onClick={() => setOpen("edit")}>
              Edit
            </button>
            <button type="button" disabled={busy} onClick={() => act(() => vendorApi.updateCustomer(api, data.id, { status: data.status === "active" ? "disabled" : "active" }), customer.reload)}>
              {data.status === "active" ? "Disable" : "Enable"}
            </button>
            <button type="button" onClick={() => setOpen("credits")}>
              Grant credits
            </button>
            <button type="button" className="primary" onClick={() => setOpen("payment")}>
              Take a payment
            </button>
          </div>
        ) : null}
      </div>
      <ErrorBanner error={customer.error} />
      <ErrorBanner error={actionError} />
      {customer.loading && !data ? <Loading label="Loading the customer…" /> : null}
      {data ? (
        <dl className={`card ${pageStyles.facts}`} data-testid="customer-facts">
          <div>
            <dt>Status</dt>
            <dd data-testid="customer-status">
              <StatusBadge status={data.status} />
            </dd>
          </div>
          <div>
            <dt>Billing</dt>
            <dd>{data.billing}</dd>
          </div>
          <div>
            <dt>Balance</dt>
            <dd data-testid="customer-balance">{usd(data.balance, "$0.00")}</dd>
          </div>
          <div>
            <dt>Budget</dt>
            <dd data-testid="customer-budget">{budgetText(data.budget)}</dd>
          </div>
          <div>
            <dt>Email</dt>
            <dd>{data.email ?? "—"}</dd>
          </div>
          <div>
            <dt>Customer id</dt>
            <dd>
              <code>{data.id}</code>
            </dd>
          </div>
        </dl>
      ) : null}

      <section className={pageStyles.section} aria-label="Keys of this customer">
        <div className={pageStyles.sectionHeading}>
          <h2>Keys</h2>
          {can("keys:create") && data ? (
            <button type="button" onClick={() => setOpen("key")}>
              Create key for {data.name}
            </button>
          ) : null}
        </div>
        {!can("keys:read") ? <ScopeNotice scope="keys:read" /> : null}
        <ErrorBanner error={keys.error} />
        {keys.data && keys.data.length === 0 ? <EmptyState title="No keys yet." /> : null}
        {keys.data && keys.data.length > 0 ? <DataTable caption="Keys of the customer" columns={keyColumns} rows={keys.data} rowKey={(key) => key.id} testId="customer-keys" /> : null}
      </section>

      <section className={pageStyles.section} aria-label="Subscriptions">
        <h2>Subscription</h2>
        {data && !active ? <EmptyState title="No active subscription.">Subscribe the customer to a plan: its keys are then held to the plan's windows and models.</EmptyState> : null}
        {active ? <DataTable caption="Subscription" columns={subscriptionColumns} rows={[active]} rowKey={(subscription) => subscription.id} testId="customer-subscriptions" /> : null}
        {subscribing ? (
          <form
            className={pageStyles.toolbar}
            aria-label="Subscribe to a plan"
            onSubmit={(event) => {
              event.preventDefault();
              if (chosenPlan) void act(() => vendorApi.subscribe(api, props.customerId, chosenPlan), customer.reload);
            }}
          >
            <Field label="Plan">
              {(id) => (
                <select id={id} value={chosenPlan} onChange={(event) => setPlanId(event.target.value)}>
                  {planList.length === 0 ? <option value="">No plans yet</option> : null}
                  {planList.map((plan) => (
                    <option key={plan.id} value={plan.id}>
                      {plan.name} ({usd(plan.price, "$0.00")} / {plan.period})
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <button type="submit" className="primary" disabled={busy || !chosenPlan}>
              {active ? "Change plan" : "Subscribe"}
            </button>
          </form>
        ) : null}
        <ErrorBanner error={plans.error} />
      </section>

      {data ? <CustomerWallet customerId={data.id} version={`${data.balance}-${active?.id ?? ""}`} /> : null}

      {data && open === "edit" ? (
        <CustomerFormDialog
          customer={data}
          onClose={() => setOpen(null)}
          onSaved={() => {
            setOpen(null);
            customer.reload();
          }}
        />
      ) : null}
      {data && open === "credits" ? (
        <GrantCreditsDialog
          customer={data}
          onClose={() => setOpen(null)}
          onSaved={() => {
            setOpen(null);
            customer.reload();
          }}
        />
      ) : null}
      {data && open === "payment" ? <CheckoutDialog customer={data} onClose={() => setOpen(null)} /> : null}
      {data && open === "key" ? <KeyCreateDialog customerId={data.id} onClose={() => setOpen(null)} onCreated={keys.reload} /> : null}
    </>
  );
}
