import type { ReactNode } from "react";
import type { UsageRow } from "../api/types.ts";
import { DataTable, type Column } from "../components/data-table.tsx";
import { EmptyState } from "../components/empty-state.tsx";
import { cacheWrites, count, usd } from "../format.ts";

/** One usage report as a table: a row per group (model, key or day) with its figures. */
export function UsageBreakdown(props: { title: string; groupHeader: string; rows: UsageRow[]; testId: string; groupCell?(row: UsageRow): ReactNode }) {
  const columns: Column<UsageRow>[] = [
    { header: props.groupHeader, cell: props.groupCell ?? ((row) => row.group) },
    { header: "Requests", cell: (row) => count(row.requests), numeric: true },
    { header: "Input tokens", cell: (row) => count(row.input_tokens), numeric: true },
    { header: "Cache reads", cell: (row) => count(row.cached_input_tokens), numeric: true },
    { header: "Cache writes", cell: (row) => cacheWrites(row.cache_write_tokens, row.cache_write_1h_tokens), numeric: true },
    { header: "Output tokens", cell: (row) => count(row.output_tokens), numeric: true },
    { header: "Images", cell: (row) => count(row.images), numeric: true },
    { header: "Web searches", cell: (row) => count(row.web_search_requests), numeric: true },
    { header: "Cost", cell: (row) => usd(row.cost, "$0.00"), numeric: true },
  ];
  return (
    <section aria-label={props.title}>
      <h2>{props.title}</h2>
      {props.rows.length === 0 ? (
        <EmptyState title="No requests in this window." />
      ) : (
        <DataTable caption={props.title} columns={columns} rows={props.rows} rowKey={(row) => row.group} testId={props.testId} />
      )}
    </section>
  );
}
