/** One node of `EXPLAIN (ANALYZE, FORMAT JSON)`, limited to the fields the summary reads. */
export interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Actual Rows"?: number;
  "Actual Loops"?: number;
  "Heap Fetches"?: number;
  Plans?: PlanNode[];
}

/**
 * Where a plan reads its rows, one line: each scan with its index (or "Seq Scan" and the table),
 * the rows it returned over all loops and its heap fetches, e.g.
 * `Index Only Scan usage_aggregates_vendor_report_idx (150,030 rows, 0 heap)`. Sorts, hashes and
 * aggregates are left out: the scans are what decide whether a query is served by an index.
 */
export function summarizePlan(root: PlanNode): string {
  const scans: string[] = [];
  const visit = (node: PlanNode) => {
    if (node["Node Type"].includes("Scan") && node["Node Type"] !== "Subquery Scan" && node["Node Type"] !== "CTE Scan") {
      const rows = Math.round((node["Actual Rows"] ?? 0) * (node["Actual Loops"] ?? 1));
      const target = node["Index Name"] ?? node["Relation Name"] ?? "?";
      const heap = node["Heap Fetches"] === undefined ? "" : `, ${node["Heap Fetches"].toLocaleString("en-US")} heap`;
      const loops = (node["Actual Loops"] ?? 1) > 1 ? ` x${node["Actual Loops"]}` : "";
      scans.push(`${node["Node Type"]} ${target}${loops} (${rows.toLocaleString("en-US")} rows${heap})`);
    }
    for (const child of node.Plans ?? []) visit(child);
  };
  visit(root);
  return scans.join("; ");
}
