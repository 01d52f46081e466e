import type { List, Payment, WalletEntry } from "../api/types.ts";
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
  if (!can("customers:read")) return null;
  return (
    <>
      <PagedSection
        title="Wallet"
        label="Wallet entries"
        testId="customer-wallet-entries"
        empty="No wallet entries yet."
        hint="Grants, payments, redeemed codes and plan charges appear here."
        listKey={`entries-${props.customerId}`}
        version={props.version}
        load={(cursor) => vendorApi.walletEntries(api, props.customerId, { limit: 10, cursor })}
        columns={entryColumns}
      />
      <PagedSection
        title="Payments"
        label="Payments"
        testId="customer-payments"
        empty="No payments yet."
        listKey={`payments-${props.customerId}`}
        version={props.version}
        load={(cursor) => vendorApi.payments(api, props.customerId, { limit: 10, cursor })}
        columns={paymentColumns}
      />
    </>
  );
}

/** One list of the customer's, newest first, with its own cursor pages. */
function PagedSection<Row extends { id: string }>(props: {
  title: string;
  label: string;
  testId: string;
  empty: string;
  hint?: string;
  /** Which list (its cursor pages start again when it changes). */
  listKey: string;
  /** Changes whenever the list may have changed: reloads the page shown. */
  version: string;
  load(cursor: string | null): Promise<List<Row>>;
  columns: Column<Row>[];
}) {
  const pages = useCursorPages(props.listKey);
  const list = useResource(() => props.load(pages.cursor), `${props.listKey}-${props.version}-${pages.cursor}`);
  const rows = list.data?.data ?? [];
  return (
    <section className={pageStyles.section} aria-label={props.label}>
      <h2>{props.title}</h2>
      <ErrorBanner error={list.error} />
      {list.data && rows.length === 0 ? <EmptyState title={props.empty}>{props.hint}</EmptyState> : null}
      {rows.length > 0 ? <DataTable caption={props.label} columns={props.columns} rows={rows} rowKey={(row) => row.id} testId={props.testId} /> : null}
      <Pager
        label={props.label}
        pageNumber={pages.pageNumber}
        hasPrevious={pages.hasPrevious}
        hasMore={Boolean(list.data?.has_more && list.data.next_cursor)}
        onPrevious={pages.previous}
        onNext={() => list.data?.next_cursor && pages.next(list.data.next_cursor)}
      />
    </section>
  );
}
