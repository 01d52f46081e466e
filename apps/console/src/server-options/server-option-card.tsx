import type { ServerOption } from "../api/types.ts";
import { DataTable, type Column } from "../components/data-table.tsx";
import { count, usd } from "../format.ts";
import styles from "./server-options.module.css";

interface ModelRow {
  model: string;
  input: string;
  output: string;
  cached_input: string;
  image: string;
}

const columns: Column<ModelRow>[] = [
  { header: "Model", cell: (row) => <code>{row.model}</code> },
  { header: "Input / 1M tokens", cell: (row) => usd(row.input, "—"), numeric: true },
  { header: "Cached input / 1M", cell: (row) => usd(row.cached_input, "—"), numeric: true },
  { header: "Output / 1M tokens", cell: (row) => usd(row.output, "—"), numeric: true },
  { header: "Per image", cell: (row) => usd(row.image, "—"), numeric: true },
];

/** One server option: description, default rate limits, and its models with their prices. */
export function ServerOptionCard(props: { option: ServerOption }) {
  const { option } = props;
  const rows = option.models.map((model) => ({ model, ...(option.pricing[model] ?? { input: "0", output: "0", cached_input: "0", image: "0" }) }));
  return (
    <section className={`card ${styles.option}`} aria-labelledby={`option-${option.id}`} data-testid="server-option">
      <h2 id={`option-${option.id}`}>{option.name}</h2>
      {option.description ? <p className="muted">{option.description}</p> : null}
      <p className={styles.limits}>
        Default rate limits: {count(option.rate_limits.rpm, "unlimited")} requests / min · {count(option.rate_limits.tpm, "unlimited")} tokens / min
      </p>
      <DataTable caption={`Models and prices of ${option.name} (USD)`} columns={columns} rows={rows} rowKey={(row) => row.model} />
    </section>
  );
}
