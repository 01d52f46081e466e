import { useEffect } from "react";
import { vendorApi } from "../api/vendor-api.ts";
import { EmptyState } from "../components/empty-state.tsx";
import { ErrorBanner } from "../components/error-banner.tsx";
import { Loading } from "../components/loading.tsx";
import { ScopeNotice } from "../components/scope-notice.tsx";
import { useResource } from "../hooks/use-resource.ts";
import { useSession } from "../session/session-context.tsx";
import { UpstreamsTable } from "./upstreams-table.tsx";
import styles from "./upstreams.module.css";

/** The proxies report every 5 s; reading as often shows a change within one report. */
const REFRESH_MS = 5_000;

/** "2 proxy processes reporting, 1 stale." */
function processSummary(processes: { stale: boolean }[]): string {
  const stale = processes.filter((process) => process.stale).length;
  const reporting = processes.length - stale;
  if (processes.length === 0) return "No proxy process has reported yet.";
  return `${reporting} proxy ${reporting === 1 ? "process" : "processes"} reporting${stale > 0 ? `, ${stale} stale` : ""}.`;
}

/** The health of the upstreams serving the vendor's models (GET /api/upstreams), refreshed every 5 s. */
export function UpstreamsPage() {
  const { api, can } = useSession();
  const readable = can("upstreams:read");
  const health = useResource(() => vendorApi.upstreams(api), "upstreams", readable);
  const { reload } = health;

  useEffect(() => {
    if (!readable) return;
    const timer = setInterval(reload, REFRESH_MS);
    return () => clearInterval(timer);
  }, [readable, reload]);

  if (!readable) {
    return (
      <>
        <h1>Upstreams</h1>
        <ScopeNotice scope="upstreams:read" />
      </>
    );
  }

  const report = health.data;
  const upstreams = report?.data ?? [];
  return (
    <>
      <h1>Upstreams</h1>
      {report ? (
        <p className={`muted ${styles.summary}`} data-testid="upstreams-summary">
          The last minute of the providers serving your models, summed over the gateway's proxy processes (reports older than {report.stale_after_seconds} s are stale).{" "}
          {processSummary(report.processes)}
        </p>
      ) : null}
      <ErrorBanner error={health.error} />
      {health.loading && !report ? <Loading label="Loading upstreams…" /> : null}
      {report && upstreams.length === 0 ? <EmptyState title="No upstream serves your models yet.">Ask the gateway's operator to assign a server option.</EmptyState> : null}
      {upstreams.length > 0 ? <UpstreamsTable upstreams={upstreams} now={Date.parse(report!.generated_at)} /> : null}
    </>
  );
}
