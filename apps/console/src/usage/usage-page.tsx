import { useState } from "react";
import type { UsageRow } from "../api/types.ts";
import { vendorApi } from "../api/vendor-api.ts";
import { ErrorBanner } from "../components/error-banner.tsx";
import { Loading } from "../components/loading.tsx";
import { ScopeNotice } from "../components/scope-notice.tsx";
import { useResource } from "../hooks/use-resource.ts";
import { useSession } from "../session/session-context.tsx";
import { DateRangePicker } from "./date-range-picker.tsx";
import { daysOf, lastDays, toQuery, type DayRange } from "./date-range.ts";
import { UsageBreakdown } from "./usage-breakdown.tsx";
import { UsageChart } from "./usage-chart.tsx";
import { UsageTotals } from "./usage-totals.tsx";
import styles from "./usage.module.css";
import { CsvDownload } from "../components/csv-download.tsx";
import pageStyles from "../components/page.module.css";

const keyCell = (row: UsageRow) => (
  <span>
    {row.name || "Unnamed key"} <code className="muted">{row.prefix ? `${row.prefix}…` : row.group}</code>
  </span>
);

/**
 * The vendor's consumption over a window: totals, a chart per day, and breakdowns by model and by
 * key. Three reports of the same window, loaded together (GET /api/usage?group_by=...).
 */
export function UsagePage() {
  const { api, can } = useSession();
  const [range, setRange] = useState<DayRange>(() => lastDays(30));
  const readable = can("usage:read");

  const reports = useResource(
    async () => {
      const window = toQuery(range);
      const [byDay, byModel, byKey] = await Promise.all([vendorApi.usage(api, window, "day"), vendorApi.usage(api, window, "model"), vendorApi.usage(api, window, "key")]);
      return { byDay, byModel, byKey };
    },
    JSON.stringify(range),
    readable,
  );

  if (!readable) {
    return (
      <>
        <h1>Usage</h1>
        <ScopeNotice scope="usage:read" />
      </>
    );
  }

  const data = reports.data;
  return (
    <>
      <div className={pageStyles.heading}>
        <h1>Usage</h1>
        <CsvDownload label="Export CSV" filename={`usage-${range.from}-${range.to}.csv`} load={() => vendorApi.usageCsv(api, { ...toQuery(range), group_by: "day" })} />
      </div>
      <DateRangePicker value={range} onChange={setRange} />
      <ErrorBanner error={reports.error} />
      {reports.loading && !data ? <Loading label="Loading usage…" /> : null}
      {data ? (
        <div aria-busy={reports.loading} className={styles.grid}>
          <UsageTotals totals={data.byDay.totals} />
          <UsageChart days={daysOf(range)} rows={data.byDay.data} />
          <UsageBreakdown title="By model" groupHeader="Model" rows={data.byModel.data} testId="usage-by-model" />
          <UsageBreakdown title="By key" groupHeader="Key" rows={data.byKey.data} testId="usage-by-key" groupCell={keyCell} />
          <UsageBreakdown title="By day" groupHeader="Day (UTC)" rows={data.byDay.data} testId="usage-by-day" />
        </div>
      ) : null}
    </>
  );
}
