import type { UsageFigures } from "../api/types.ts";
import { count, usd } from "../format.ts";
import styles from "./usage.module.css";

/** The window's totals as figures at a glance (they equal the sum of every table below). */
export function UsageTotals(props: { totals: UsageFigures }) {
  const { totals } = props;
  const figures = [
    { label: "Cost", value: usd(totals.cost, "$0.00"), testId: "total-cost" },
    { label: "Requests", value: count(totals.requests), testId: "total-requests" },
    { label: "Input tokens", value: count(totals.input_tokens), testId: "total-input-tokens" },
    { label: "Output tokens", value: count(totals.output_tokens), testId: "total-output-tokens" },
  ];
  return (
    <dl className={styles.totals}>
      {figures.map((figure) => (
        <div key={figure.label} className="card">
          <dt>{figure.label}</dt>
          <dd data-testid={figure.testId}>{figure.value}</dd>
        </div>
      ))}
    </dl>
  );
}
