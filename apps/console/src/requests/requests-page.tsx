import { useState } from "react";
import { vendorApi } from "../api/vendor-api.ts";
import { EmptyState } from "../components/empty-state.tsx";
import { ErrorBanner } from "../components/error-banner.tsx";
import { Loading } from "../components/loading.tsx";
import { Pager } from "../components/pager.tsx";
import { ScopeNotice } from "../components/scope-notice.tsx";
import { useCursorPages } from "../hooks/use-cursor-pages.ts";
import { useResource } from "../hooks/use-resource.ts";
import type { RequestRow } from "../api/types.ts";
import { useSession } from "../session/session-context.tsx";
import { RequestAttemptsDialog } from "./request-attempts-dialog.tsx";
import { NO_FILTERS, RequestFilters, type RequestFilterValues } from "./request-filters.tsx";
import { RequestsTable } from "./requests-table.tsx";
import { CsvDownload } from "../components/csv-download.tsx";
import { useKeyNames } from "../hooks/use-key-names.ts";
import styles from "./requests.module.css";

const PAGE_SIZE = 25;

/** The vendor's request log (GET /api/requests), filtered and paged by cursor. */
export function RequestsPage() {
  const { api, can } = useSession();
  const [filters, setFilters] = useState<RequestFilterValues>(NO_FILTERS);
  const [attemptsOf, setAttemptsOf] = useState<RequestRow | null>(null);
  const pages = useCursorPages(JSON.stringify(filters));
  const readable = can("usage:read");
  const keyNames = useKeyNames();

  const log = useResource(
    () => vendorApi.requests(api, { id: filters.id, key_id: filters.keyId, model: filters.model, status: filters.status, limit: PAGE_SIZE, cursor: pages.cursor }),
    JSON.stringify([filters, pages.cursor]),
    readable,
  );

  if (!readable) {
    return (
      <>
        <h1>Requests</h1>
        <ScopeNotice scope="usage:read" />
      </>
    );
  }

  const rows = log.data?.data ?? [];
  const filtered = Object.values(filters).some((value) => value !== "");
  const csvQuery = { id: filters.id, key_id: filters.keyId, model: filters.model, status: filters.status };
  return (
    <>
      <div className={styles.exportRow}>
        <h1>Requests</h1>
        <CsvDownload label="Export CSV" filename="requests.csv" load={() => vendorApi.requestsCsv(api, csvQuery)} />
      </div>
      <RequestFilters value={filters} onApply={setFilters} />
      <ErrorBanner error={log.error} />
      {log.loading && !log.data ? <Loading label="Loading requests…" /> : null}
      {log.data && rows.length === 0 ? (
        <EmptyState title={filtered ? "No requests match these filters." : "No requests yet."}>
          {filtered ? "Clear the filters to see every request." : "Requests made with your keys appear here within seconds."}
        </EmptyState>
      ) : null}
      {rows.length > 0 ? (
        <div aria-busy={log.loading}>
          <RequestsTable rows={rows} onShowAttempts={setAttemptsOf} keyNames={keyNames} />
        </div>
      ) : null}
      <Pager
        label="Requests"
        pageNumber={pages.pageNumber}
        hasPrevious={pages.hasPrevious}
        hasMore={Boolean(log.data?.has_more && log.data.next_cursor)}
        onPrevious={pages.previous}
        onNext={() => log.data?.next_cursor && pages.next(log.data.next_cursor)}
      />
      {attemptsOf ? <RequestAttemptsDialog request={attemptsOf} onClose={() => setAttemptsOf(null)} /> : null}
    </>
  );
}
