import type { Payment, WalletEntry } from "../api/types.ts";
import { vendorApi } from "../api/vendor-api.ts";
import { DataTable, type Column } from "../components/data-table.tsx";
import { EmptyState } from "../components/empty-state.tsx";
import { ErrorBanner } from "../components/error-banner.tsx";
import pageStyles from "../components/page.module.css";
import { Pager } from "../components/pager.tsx";
import { StatusBadge } from "../components/status-badge.tsx";
import { dateTime, usd } from "../format.ts";
import { useCursorPages } from "../hooks/use-cursor-pages.ts";
import { useResource } from "../hooks/use-resource.ts";
import { useSession } from "../session/session-context.tsx";

const KIND_NAMES: Record<string, string> = { grant: "Grant", payment: "Card payment", code: "Redemption code", auto_top_up: "Auto top-up", plan: "Plan charge", checkout: "Checkout" };
const kindName = (kind: string) => KIND_NAMES[kind] ?? kind;

const entryColumns: Column<WalletEntry>[] = [
  { header: "When", cell: (entry) => dateTime(entry.created_at) },
  { header: "Kind", cell: (entry) => kindName(entry.kind) },
  { header: "Amount", cell: (entry) => usd(entry.amount, "$0.00"), numeric: true },
  { header: "Reason", cell: (entry) => entry.reason || <span className="muted">—</span> },
];

const paymentColumns: Column<Payment>[] = [
  { header: "When", cell: (payment) => dateTime(payment.created_at) },
  { header: "Kind", cell: (payment) => kindName(payment.kind) },
  { header: "Amount", cell: (payment) => usd(payment.amount, "$0.00"), numeric: true },
  { header: "Status", cell: (payment) => <StatusBadge status={payment.status} /> },
];

/**
 * A customer's wallet: every entry (credits, and plan charges as negative amounts) and its card
 * payments (checkout and auto top-up), newest first, a page at a time. `version` changes whenever
 * the customer's balance or subscription does, which reloads both.
 */
export function CustomerWallet(props: { customerId: string; version: string }) {
  const { api, can } = useSession();
  const readable = can("customers:read");
  const entryPages = useCursorPages(`entries-${props.customerId}`);
  const paymentPages = useCursorPages(`payments-${props.customerId}`);
  const entries = useResource(
    () => vendorApi.walletEntries(api, props.customerId, { limit: 10, cursor: entryPages.cursor }),
    `entries-${props.customerId}-${entryPages.cursor}-${props.version}`,
    readable,
  );
  const payments = useResource(
    () => vendorApi.payments(api, props.customerId, { limit: 10, cursor: paymentPages.cursor }),
    `payments-${props.customerId}-${paymentPages.cursor}-${props.version}`,
    readable,
  );
  if (!readable) return null;
  return (
    <>
      <section className={pageStyles.section} aria-label="Wallet entries">
        <h2>Wallet</h2>
        <ErrorBanner error={entries.error} />
        {entries.data && entries.data.data.length === 0 ? <EmptyState title="No wallet entries yet.">Grants, payments, redeemed codes and plan charges appear here.</EmptyState> : null}
        {entries.data && entries.data.data.length > 0 ? <DataTable caption="Wallet entries" columns={entryColumns} rows={entries.data.data} rowKey={(entry) => entry.id} testId="customer-wallet-entries" /> : null}
        <Pager
          label="Wallet entries"
          pageNumber={entryPages.pageNumber}
          hasPrevious={entryPages.hasPrevious}
          hasMore={Boolean(entries.data?.has_more && entries.data.next_cursor)}
          onPrevious={entryPages.previous}
          onNext={() => entries.data?.next_cursor && entryPages.next(entries.data.next_cursor)}
        />
      </section>
      <section className={pageStyles.section} aria-label="Payments">
        <h2>Payments</h2>
        <ErrorBanner error={payments.error} />
        {payments.data && payments.data.data.length === 0 ? <EmptyState title="No payments yet." /> : null}
        {payments.data && payments.data.data.length > 0 ? <DataTable caption="Payments" columns={paymentColumns} rows={payments.data.data} rowKey={(payment) => payment.id} testId="customer-payments" /> : null}
        <Pager
          label="Payments"
          pageNumber={paymentPages.pageNumber}
          hasPrevious={paymentPages.hasPrevious}
          hasMore={Boolean(payments.data?.has_more && payments.data.next_cursor)}
          onPrevious={paymentPages.previous}
          onNext={() => payments.data?.next_cursor && paymentPages.next(payments.data.next_cursor)}
        />
      </section>
    </>
  );
}
