import { useState } from "react";
import type { Customer } from "../api/types.ts";
import { vendorApi } from "../api/vendor-api.ts";
import { DataTable, type Column } from "../components/data-table.tsx";
import { EmptyState } from "../components/empty-state.tsx";
import { ErrorBanner } from "../components/error-banner.tsx";
import { Field } from "../components/field.tsx";
import { Loading } from "../components/loading.tsx";
import pageStyles from "../components/page.module.css";
import { Pager } from "../components/pager.tsx";
import { ScopeNotice } from "../components/scope-notice.tsx";
import { StatusBadge } from "../components/status-badge.tsx";
import { dateTime, usd } from "../format.ts";
import { useCursorPages } from "../hooks/use-cursor-pages.ts";
import { useDebounced } from "../hooks/use-debounced.ts";
import { useResource } from "../hooks/use-resource.ts";
import { PageLink } from "../router/page-link.tsx";
import { navigate } from "../router/routes.ts";
import { useSession } from "../session/session-context.tsx";
import { CustomerFormDialog } from "./customer-form-dialog.tsx";

const PAGE_SIZE = 20;

export function budgetText(budget: Customer["budget"]): string {
  if (!budget) return "None";
  return budget.used !== undefined ? `${usd(budget.used)} of ${usd(budget.limit)} / ${budget.period}` : `${usd(budget.limit)} / ${budget.period}`;
}

const columns: Column<Customer>[] = [
  {
    header: "Customer",
    cell: (customer) => (
      <span className={pageStyles.stack}>
        <PageLink page="customers" detail={customer.id}>
          <strong>{customer.name}</strong>
        </PageLink>
        {customer.email ? <span className="muted">{customer.email}</span> : null}
      </span>
    ),
  },
  { header: "Status", cell: (customer) => <StatusBadge status={customer.status} /> },
  { header: "Billing", cell: (customer) => customer.billing },
  { header: "Balance", cell: (customer) => <span data-testid="customer-balance">{usd(customer.balance, "$0.00")}</span>, numeric: true },
  { header: "Budget", cell: (customer) => budgetText(customer.budget) },
  { header: "Created", cell: (customer) => dateTime(customer.created_at) },
];

/** The vendor's customers (contract section 19): search, pages, create; each opens its own page. */
export function CustomersPage() {
  const { api, can } = useSession();
  const [search, setSearch] = useState("");
  const settled = useDebounced(search.trim(), 300);
  const pages = useCursorPages(settled);
  const [creating, setCreating] = useState(false);
  const readable = can("customers:read");
  const list = useResource(
    () => vendorApi.listCustomers(api, { limit: PAGE_SIZE, cursor: pages.cursor, search: settled }),
    JSON.stringify([pages.cursor, settled]),
    readable,
  );
  const customers = list.data?.data ?? [];
  return (
    <>
      <div className={pageStyles.heading}>
        <h1>Customers</h1>
        {can("customers:write") ? (
          <button type="button" className="primary" onClick={() => setCreating(true)}>
            Create customer
          </button>
        ) : null}
      </div>
      {readable ? (
        <form className={pageStyles.toolbar} role="search" onSubmit={(event) => event.preventDefault()}>
          <Field label="Search">{(id) => <input id={id} type="search" placeholder="Name, email or id" value={search} onChange={(event) => setSearch(event.target.value)} />}</Field>
        </form>
      ) : (
        <ScopeNotice scope="customers:read" />
      )}
      {readable ? <ErrorBanner error={list.error} /> : null}
      {readable && list.loading && !list.data ? <Loading label="Loading customers…" /> : null}
      {readable && list.data && customers.length === 0 ? (
        <EmptyState title={settled ? "No customers match." : "No customers yet."}>{settled ? "Try another search." : "Create a customer, then give it keys, a plan or credits."}</EmptyState>
      ) : null}
      {customers.length > 0 ? (
        <div aria-busy={list.loading}>
          <DataTable caption="Customers" columns={columns} rows={customers} rowKey={(customer) => customer.id} testId="customers-table" />
        </div>
      ) : null}
      <Pager
        label="Customers"
        pageNumber={pages.pageNumber}
        hasPrevious={pages.hasPrevious}
        hasMore={Boolean(list.data?.has_more && list.data.next_cursor)}
        onPrevious={pages.previous}
        onNext={() => list.data?.next_cursor && pages.next(list.data.next_cursor)}
      />
      {creating ? (
        <CustomerFormDialog
          onClose={() => setCreating(false)}
          onSaved={(customer) => {
            setCreating(false);
            navigate("customers", customer.id);
          }}
        />
      ) : null}
    </>
  );
}
