import { vendorApi } from "../api/vendor-api.ts";
import { EmptyState } from "../components/empty-state.tsx";
import { ErrorBanner } from "../components/error-banner.tsx";
import { Loading } from "../components/loading.tsx";
import { useResource } from "../hooks/use-resource.ts";
import { useSession } from "../session/session-context.tsx";
import { ServerOptionCard } from "./server-option-card.tsx";
import styles from "./server-options.module.css";

/** The server options assigned to the vendor: what a key on each may call, and at what price. */
export function ServerOptionsPage() {
  const { api } = useSession();
  const options = useResource(() => vendorApi.serverOptions(api), "server-options");
  const list = options.data?.data ?? [];
  return (
    <>
      <h1>Server options</h1>
      <ErrorBanner error={options.error} />
      {options.loading && !options.data ? <Loading label="Loading server options…" /> : null}
      {options.data && list.length === 0 ? <EmptyState title="No server options are assigned to you yet.">Ask the gateway's operator to assign one.</EmptyState> : null}
      <div className={styles.list}>
        {list.map((option) => (
          <ServerOptionCard key={option.id} option={option} />
        ))}
      </div>
    </>
  );
}
