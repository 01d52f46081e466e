import { describe, expect, it } from "vitest";
import { summarizePlan } from "./plan-summary.ts";

describe("summarizePlan", () => {
  it("lists the scans with their index, rows over all loops and heap fetches", () => {
    const plan = {
      "Node Type": "Nested Loop",
      Plans: [
        { "Node Type": "Limit", Plans: [{ "Node Type": "Index Only Scan", "Index Name": "usage_records_vendor_ledger_idx", "Actual Rows": 101, "Actual Loops": 1, "Heap Fetches": 0 }] },
        { "Node Type": "Index Scan", "Index Name": "usage_records_pkey", "Actual Rows": 1, "Actual Loops": 101 },
        { "Node Type": "Seq Scan", "Relation Name": "api_keys", "Actual Rows": 1500, "Actual Loops": 1 },
      ],
    };
    expect(summarizePlan(plan)).toBe(
      "Index Only Scan usage_records_vendor_ledger_idx (101 rows, 0 heap); Index Scan usage_records_pkey x101 (101 rows); Seq Scan api_keys (1,500 rows)",
    );
  });
});
