import { useEffect } from "react";
import type { WebhookDelivery } from "../api/types.ts";
import { vendorApi } from "../api/vendor-api.ts";
import { DataTable, type Column } from "../components/data-table.tsx";
import { EmptyState } from "../components/empty-state.tsx";
import { ErrorBanner } from "../components/error-banner.tsx";
import { Loading } from "../components/loading.tsx";
import pageStyles from "../components/page.module.css";
import { Pager } from "../components/pager.tsx";
import { ScopeNotice } from "../components/scope-notice.tsx";
import { ShortId } from "../components/short-id.tsx";
import { StatusBadge } from "../components/status-badge.tsx";
import { count, dateTime } from "../format.ts";
import { useCursorPages } from "../hooks/use-cursor-pages.ts";
import { useResource } from "../hooks/use-resource.ts";
import { PageLink } from "../router/page-link.tsx";
import { useSession } from "../session/session-context.tsx";

const PAGE_SIZE = 25;
/** Deliveries are retried in the background: the list follows them. */
const REFRESH_MS = 5_000;

const columns: Column<WebhookDelivery>[] = [
  { header: "Time", cell: (delivery) => dateTime(delivery.created_at) },
  { header: "Event", cell: (delivery) => <code>{delivery.event}</code> },
  { header: "Status", cell: (delivery) => <StatusBadge status={delivery.status} /> },
  { header: "Attempts", cell: (delivery) => <span data-testid="delivery-attempts">{count(delivery.attempts)}</span>, numeric: true },
  { header: "Response", cell: (delivery) => (delivery.response_status === null ? "none" : String(delivery.response_status)), numeric: true },
  { header: "Delivery id", cell: (delivery) => <ShortId id={delivery.id} /> },
];

/** One webhook and its deliveries: each event, whether it was acknowledged, after how many attempts. */
export function WebhookPage(props: { webhookId: string }) {
  const { api, can } = useSession();
  const allowed = can("webhooks:write");
  const pages = useCursorPages(props.webhookId);
  const webhook = useResource(() => vendorApi.webhook(api, props.webhookId), props.webhookId, allowed);
  const deliveries = useResource(
    () => vendorApi.webhookDeliveries(api, props.webhookId, { limit: PAGE_SIZE, cursor: pages.cursor }),
    JSON.stringify([props.webhookId, pages.cursor]),
    allowed,
  );
  const { reload } = deliveries;
  useEffect(() => {
    if (!allowed) return;
    const timer = setInterval(reload, REFRESH_MS);
    return () => clearInterval(timer);
  }, [allowed, reload]);

  const rows = deliveries.data?.data ?? [];
  return (
    <>
      <p>
        <PageLink page="webhooks">← All webhooks</PageLink>
      </p>
      <h1 className={pageStyles.wrapText}>Webhook deliveries</h1>
      {!allowed ? <ScopeNotice scope="webhooks:write" /> : null}
      <ErrorBanner error={webhook.error} />
      {webhook.data ? (
        <dl className={`card ${pageStyles.facts}`}>
          <div>
            <dt>URL</dt>
            <dd>
              <code data-testid="webhook-url">{webhook.data.url}</code>
            </dd>
          </div>
          <div>
            <dt>Events</dt>
            <dd>{webhook.data.events.join(", ")}</dd>
          </div>
          <div>
            <dt>Webhook id</dt>
            <dd>
              <code>{webhook.data.id}</code>
            </dd>
          </div>
        </dl>
      ) : null}
      <ErrorBanner error={deliveries.error} />
      {deliveries.loading && !deliveries.data ? <Loading label="Loading deliveries…" /> : null}
      {deliveries.data && rows.length === 0 ? <EmptyState title="No deliveries yet.">Events appear here as they are sent, with every retry.</EmptyState> : null}
      {rows.length > 0 ? <DataTable caption="Deliveries" columns={columns} rows={rows} rowKey={(delivery) => delivery.id} testId="deliveries-table" /> : null}
      <Pager
        label="Deliveries"
        pageNumber={pages.pageNumber}
        hasPrevious={pages.hasPrevious}
        hasMore={Boolean(deliveries.data?.has_more && deliveries.data.next_cursor)}
        onPrevious={pages.previous}
        onNext={() => deliveries.data?.next_cursor && pages.next(deliveries.data.next_cursor)}
      />
    </>
  );
}
