import type { ModelPrice, ServerOption, UnitPrices } from "../api/types.ts";
import { DataTable, type Column } from "../components/data-table.tsx";
import { count, usd } from "../format.ts";
import styles from "./server-options.module.css";

interface ModelRow extends ModelPrice {
  model: string;
}

const NO_PRICES: ModelPrice = { input: "0", output: "0", cached_input: "0", cache_write: "0", cache_write_1h: "0", image: "0", request: "0", web_search: "0", tiers: [] };

const columns: Column<ModelRow>[] = [
  { header: "Model", cell: (row) => <code>{row.model}</code> },
  { header: "Input / 1M tokens", cell: (row) => usd(row.input, "—"), numeric: true },
  { header: "Cache read / 1M", cell: (row) => usd(row.cached_input, "—"), numeric: true },
  { header: "Cache write / 1M (5 min · 1 h)", cell: (row) => `${usd(row.cache_write, "—")} · ${usd(row.cache_write_1h, "—")}`, numeric: true },
  { header: "Output / 1M tokens", cell: (row) => usd(row.output, "—"), numeric: true },
  { header: "Per image", cell: (row) => usd(row.image, "—"), numeric: true },
  { header: "Per request", cell: (row) => usd(row.request, "—"), numeric: true },
  { header: "Per web search", cell: (row) => usd(row.web_search, "—"), numeric: true },
];

/** "input $6.00, output $22.50" for the prices of a tier (the ones it charges at all). */
function tierPrices(prices: UnitPrices): string {
  const parts: [string, string][] = [
    ["input", prices.input],
    ["output", prices.output],
    ["cache read", prices.cached_input],
    ["cache write", prices.cache_write],
  ];
  return parts
    .filter(([, amount]) => Number(amount) > 0)
    .map(([name, amount]) => `${name} ${usd(amount)}`)
    .join(", ");
}

/** One server option: description, default rate limits, and its models with their prices. */
export function ServerOptionCard(props: { option: ServerOption }) {
  const { option } = props;
  const rows: ModelRow[] = option.models.map((model) => ({ model, ...(option.pricing[model] ?? NO_PRICES) }));
  const tiered = rows.filter((row) => row.tiers.length > 0);
  return (
    <section className={`card ${styles.option}`} aria-labelledby={`option-${option.id}`} data-testid="server-option">
      <h2 id={`option-${option.id}`}>{option.name}</h2>
      {option.description ? <p className="muted">{option.description}</p> : null}
      <p className={styles.limits}>
        Default rate limits: {count(option.rate_limits.rpm, "unlimited")} requests / min · {count(option.rate_limits.tpm, "unlimited")} tokens / min
      </p>
      <DataTable caption={`Models and prices of ${option.name} (USD)`} columns={columns} rows={rows} rowKey={(row) => row.model} />
      {tiered.length > 0 ? (
        <ul className="muted" data-testid="price-tiers">
          {tiered.flatMap((row) =>
            row.tiers.map((tier) => (
              <li key={`${row.model}-${tier.above_input_tokens}`}>
                <code>{row.model}</code> above {count(tier.above_input_tokens)} input tokens: {tierPrices(tier)} per million tokens
              </li>
            )),
          )}
        </ul>
      ) : null}
    </section>
  );
}
