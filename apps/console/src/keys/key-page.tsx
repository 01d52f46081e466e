import { useState } from "react";
import type { RequestRow, UsageRow } from "../api/types.ts";
import { vendorApi } from "../api/vendor-api.ts";
import { EmptyState } from "../components/empty-state.tsx";
import { ErrorBanner } from "../components/error-banner.tsx";
import { Loading } from "../components/loading.tsx";
import { Pager } from "../components/pager.tsx";
import { ScopeNotice } from "../components/scope-notice.tsx";
import { StatusBadge } from "../components/status-badge.tsx";
import pageStyles from "../components/page.module.css";
import { count, dateTime, usd } from "../format.ts";
import { useCursorPages } from "../hooks/use-cursor-pages.ts";
import { useResource } from "../hooks/use-resource.ts";
import { RequestAttemptsDialog } from "../requests/request-attempts-dialog.tsx";
import { RequestsTable } from "../requests/requests-table.tsx";
import { PageLink } from "../router/page-link.tsx";
import { pathOf } from "../router/routes.ts";
import { useSession } from "../session/session-context.tsx";
import { DateRangePicker } from "../usage/date-range-picker.tsx";
import { daysOf, lastDays, toQuery, type DayRange } from "../usage/date-range.ts";
import { UsageChart } from "../usage/usage-chart.tsx";
import { UsageTotals } from "../usage/usage-totals.tsx";
import usageStyles from "../usage/usage.module.css";

const PAGE_SIZE = 25;
/** The chart sums the key's request log per day; this many rows at most (noted when reached). */
const CHART_ROWS = 2_000;

const ZERO: Omit<UsageRow, "group"> = {
  requests: 0,
  input_tokens: 0,
  output_tokens: 0,
  cached_input_tokens: 0,
  cache_write_tokens: 0,
  cache_write_1h_tokens: 0,
  reasoning_tokens: 0,
  images: 0,
  web_search_requests: 0,
  cost: "0",
};

/** Adds two USD decimal strings exactly (nano-dollars as BigInt). */
function addUsd(a: string, b: string): string {
  const nano = (text: string) => {
    const [whole = "0", fraction = ""] = text.split(".");
    const negative = whole.startsWith("-");
    const value = BigInt(whole.replace("-", "") || "0") * 1_000_000_000n + BigInt((fraction + "000000000").slice(0, 9));
    return negative ? -value : value;
  };
  const sum = nano(a) + nano(b);
  const whole = sum / 1_000_000_000n;
  const fraction = (sum % 1_000_000_000n).toString().padStart(9, "0").slice(0, 6);
  return `${whole}.${fraction}`;
}

/** The key's request log in a window, summed per UTC day (the usage report has no per-key filter). */
function perDay(rows: RequestRow[]): UsageRow[] {
  const days = new Map<string, UsageRow>();
  for (const row of rows) {
    const day = row.created_at.slice(0, 10);
    const sum = days.get(day) ?? { ...ZERO, group: day };
    sum.requests += 1;
    sum.input_tokens += row.input_tokens;
    sum.output_tokens += row.output_tokens;
    sum.cost = addUsd(sum.cost, row.cost);
    days.set(day, sum);
  }
  return [...days.values()];
}

/** One key: its settings, its usage per day in a window, and its requests (from the keys list). */
export function KeyPage(props: { keyId: string }) {
  const { api, can } = useSession();
  const [range, setRange] = useState<DayRange>(() => lastDays(30));
  const [attemptsOf, setAttemptsOf] = useState<RequestRow | null>(null);
  const pages = useCursorPages(props.keyId);
  const readable = can("keys:read");
  const usageReadable = can("usage:read");

  const key = useResource(() => vendorApi.key(api, props.keyId), props.keyId, readable);
  const usage = useResource(
    async () => {
      const window = toQuery(range);
      const totals = await vendorApi.keyUsage(api, props.keyId, { from: `${window.from}T00:00:00Z`, to: `${window.to}T00:00:00Z` });
      const rows: RequestRow[] = [];
      let cursor: string | null = null;
      do {
        const page = await vendorApi.requests(api, { key_id: props.keyId, from: `${window.from}T00:00:00Z`, to: `${window.to}T00:00:00Z`, limit: 100, cursor });
        rows.push(...page.data);
        cursor = page.has_more ? page.next_cursor : null;
      } while (cursor && rows.length < CHART_ROWS);
      return { totals, days: perDay(rows), capped: cursor !== null };
    },
    JSON.stringify([props.keyId, range]),
    usageReadable,
  );
  const log = useResource(
    () => vendorApi.requests(api, { key_id: props.keyId, limit: PAGE_SIZE, cursor: pages.cursor }),
    JSON.stringify([props.keyId, pages.cursor]),
    usageReadable,
  );

  const apiKey = key.data;
  const title = apiKey ? apiKey.name || `${apiKey.prefix}…` : "Key";
  return (
    <>
      <p>
        <PageLink page="keys">← All keys</PageLink>
      </p>
      <div className={pageStyles.heading}>
        <h1>{title}</h1>
        {apiKey ? (
          <div className={pageStyles.buttons}>
            <StatusBadge status={apiKey.status} />
            {apiKey.status === "active" ? (
              <a href={`${pathOf("playground")}?key=${encodeURIComponent(apiKey.id)}`} onClick={(event) => {
                if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
                event.preventDefault();
                window.history.pushState(null, "", `${pathOf("playground")}?key=${encodeURIComponent(apiKey.id)}`);
                window.dispatchEvent(new PopStateEvent("popstate"));
              }}>
                Try in the playground
              </a>
            ) : null}
          </div>
        ) : null}
      </div>
      {!readable ? <ScopeNotice scope="keys:read" /> : null}
      <ErrorBanner error={key.error} />
      {key.loading && !apiKey ? <Loading label="Loading the key…" /> : null}
      {apiKey ? (
        <dl className={`card ${pageStyles.facts}`} data-testid="key-facts">
          <div>
            <dt>Key id</dt>
            <dd>
              <code>{apiKey.id}</code>
            </dd>
          </div>
          <div>
            <dt>Prefix</dt>
            <dd>
              <code>{apiKey.prefix}…</code>
            </dd>
          </div>
          <div>
            <dt>Server option</dt>
            <dd>{apiKey.server_option}</dd>
          </div>
          <div>
            <dt>Quota</dt>
            <dd data-testid="key-quota">{usd(apiKey.quota)}</dd>
          </div>
          <div>
            <dt>Budget</dt>
            <dd>{apiKey.budget ? `${usd(apiKey.budget.used)} of ${usd(apiKey.budget.limit)} / ${apiKey.budget.period}` : "None"}</dd>
          </div>
          <div>
            <dt>Rate limits</dt>
            <dd>
              {count(apiKey.rate_limits.rpm, "∞")} rpm · {count(apiKey.rate_limits.tpm, "∞")} tpm
            </dd>
          </div>
          {apiKey.customer_id ? (
            <div>
              <dt>Customer</dt>
              <dd>
                <PageLink page="customers" detail={apiKey.customer_id}>
                  {apiKey.customer_id}
                </PageLink>
              </dd>
            </div>
          ) : null}
          <div>
            <dt>Last used</dt>
            <dd>{dateTime(apiKey.last_used_at)}</dd>
          </div>
        </dl>
      ) : null}

      <section className={pageStyles.section} aria-label="Usage of this key">
        <h2>Usage</h2>
        {!usageReadable ? (
          <ScopeNotice scope="usage:read" />
        ) : (
          <>
            <DateRangePicker value={range} onChange={setRange} />
            <ErrorBanner error={usage.error} />
            {usage.loading && !usage.data ? <Loading label="Loading usage…" /> : null}
            {usage.data ? (
              <div aria-busy={usage.loading} className={usageStyles.grid}>
                <UsageTotals
                  totals={{
                    ...ZERO,
                    requests: usage.data.totals.consumption.requests,
                    input_tokens: usage.data.totals.consumption.input_tokens,
                    output_tokens: usage.data.totals.consumption.output_tokens,
                    cost: usage.data.totals.consumption.cost,
                  }}
                />
                <UsageChart days={daysOf(range)} rows={usage.data.days} />
                {usage.data.capped ? <p className="muted">The chart sums the latest {count(CHART_ROWS)} requests of the window; the totals count all of them.</p> : null}
              </div>
            ) : null}
          </>
        )}
      </section>

      {usageReadable ? (
        <section className={pageStyles.section} aria-label="Requests of this key">
          <h2>Requests</h2>
          <ErrorBanner error={log.error} />
          {log.loading && !log.data ? <Loading label="Loading requests…" /> : null}
          {log.data && log.data.data.length === 0 ? <EmptyState title="No requests with this key yet." /> : null}
          {log.data && log.data.data.length > 0 ? (
            <div aria-busy={log.loading}>
              <RequestsTable rows={log.data.data} onShowAttempts={setAttemptsOf} hideKey />
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
        </section>
      ) : null}
      {attemptsOf ? <RequestAttemptsDialog request={attemptsOf} onClose={() => setAttemptsOf(null)} /> : null}
    </>
  );
}
