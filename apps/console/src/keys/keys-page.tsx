import { useState } from "react";
import type { ApiKey, KeyStatus } from "../api/types.ts";
import { vendorApi } from "../api/vendor-api.ts";
import { EmptyState } from "../components/empty-state.tsx";
import { ErrorBanner } from "../components/error-banner.tsx";
import { Field } from "../components/field.tsx";
import { Loading } from "../components/loading.tsx";
import { Pager } from "../components/pager.tsx";
import { ScopeNotice } from "../components/scope-notice.tsx";
import { useCursorPages } from "../hooks/use-cursor-pages.ts";
import { useDebounced } from "../hooks/use-debounced.ts";
import { useResource } from "../hooks/use-resource.ts";
import { useSession } from "../session/session-context.tsx";
import type { KeyAction } from "./key-actions.tsx";
import { KeyDialogs, type OpenDialog } from "./key-dialogs.tsx";
import { KeysTable } from "./keys-table.tsx";
import styles from "./keys.module.css";

const PAGE_SIZE = 20;

/**
 * The vendor's keys: search, status filter, cursor pages, and every change a key can have. Only
 * what the token's scopes allow is shown; without keys:read the list is a ScopeNotice.
 */
export function KeysPage() {
  const { api, can } = useSession();
  const [search, setSearch] = useState("");
  const [status, setStatus] = useState<KeyStatus | "">("");
  const settledSearch = useDebounced(search.trim(), 300);
  const pages = useCursorPages(JSON.stringify([status, settledSearch]));
  const [dialog, setDialog] = useState<OpenDialog | null>(null);
  const [busyId, setBusyId] = useState<string | null>(null);
  const [actionError, setActionError] = useState<unknown>(null);
  const readable = can("keys:read");

  const list = useResource(
    () => vendorApi.listKeys(api, { limit: PAGE_SIZE, cursor: pages.cursor, status, search: settledSearch }),
    JSON.stringify([pages.cursor, status, settledSearch]),
    readable,
  );

  const onAction = async (action: KeyAction, key: ApiKey) => {
    setActionError(null);
    if (action !== "toggle") {
      setDialog({ action, key });
      return;
    }
    setBusyId(key.id);
    try {
      await vendorApi.updateKey(api, key.id, { status: key.status === "active" ? "disabled" : "active" });
      list.reload();
    } catch (failure) {
      setActionError(failure);
    } finally {
      setBusyId(null);
    }
  };

  const keys = readable ? (list.data?.data ?? []) : [];
  const filtered = settledSearch !== "" || status !== "";
  return (
    <>
      <div className={styles.heading}>
        <h1>Keys</h1>
        {can("keys:create") ? (
          <button type="button" className="primary" onClick={() => setDialog({ action: "create" })}>
            Create key
          </button>
        ) : null}
      </div>
      {readable ? (
        <form className={styles.toolbar} role="search" onSubmit={(event) => event.preventDefault()}>
          <Field label="Search">
            {(id) => <input id={id} type="search" placeholder="Name, key id or prefix" value={search} onChange={(event) => setSearch(event.target.value)} />}
          </Field>
          <div className={styles.status}>
            <Field label="Status">
              {(id) => (
                <select id={id} value={status} onChange={(event) => setStatus(event.target.value as KeyStatus | "")}>
                  <option value="">All</option>
                  <option value="active">Active</option>
                  <option value="disabled">Disabled</option>
                  <option value="revoked">Revoked</option>
                </select>
              )}
            </Field>
          </div>
        </form>
      ) : (
        <ScopeNotice scope="keys:read" />
      )}
      <ErrorBanner error={actionError} />
      {readable ? <ErrorBanner error={list.error} /> : null}
      {readable && list.loading && !list.data ? <Loading label="Loading keys…" /> : null}
      {readable && list.data && keys.length === 0 ? (
        <EmptyState title={filtered ? "No keys match." : "No keys yet."}>{filtered ? "Try another search or status." : "Create a key to give a customer access."}</EmptyState>
      ) : null}
      {keys.length > 0 ? (
        <div aria-busy={list.loading}>
          <KeysTable keys={keys} busyId={busyId} onAction={onAction} withActions={can("keys:update") || can("keys:revoke")} />
        </div>
      ) : null}
      <Pager
        label="Keys"
        pageNumber={pages.pageNumber}
        hasPrevious={pages.hasPrevious}
        hasMore={Boolean(list.data?.has_more && list.data.next_cursor)}
        onPrevious={pages.previous}
        onNext={() => list.data?.next_cursor && pages.next(list.data.next_cursor)}
      />
      <KeyDialogs open={dialog} onClose={() => setDialog(null)} onChanged={list.reload} />
    </>
  );
}
