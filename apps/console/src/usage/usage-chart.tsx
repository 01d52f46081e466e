import { useEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import type { UsageRow } from "../api/types.ts";
import { count, usd } from "../format.ts";
import styles from "./usage.module.css";

const HEIGHT = 280;

const compact = new Intl.NumberFormat("en-US", { notation: "compact", maximumFractionDigits: 1 });
/** Axis money: two significant digits, so $0.000008 and $120 both read whole. */
const money = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", minimumFractionDigits: 0, maximumSignificantDigits: 2 });

/** Chart columns: one x per day of the range (UTC midnight, seconds), zero where nothing ran. */
function columns(days: string[], rows: UsageRow[]): uPlot.AlignedData {
  const byDay = new Map(rows.map((row) => [row.group, row]));
  const x = days.map((day) => Date.parse(`${day}T00:00:00Z`) / 1000);
  const input = days.map((day) => byDay.get(day)?.input_tokens ?? 0);
  const output = days.map((day) => byDay.get(day)?.output_tokens ?? 0);
  // The chart draws floats; the exact figures are in the totals and the tables.
  const cost = days.map((day) => Number(byDay.get(day)?.cost ?? "0"));
  return [x, input, output, cost];
}

function options(width: number): uPlot.Options {
  return {
    width,
    height: HEIGHT,
    tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), "Etc/UTC"),
    cursor: { drag: { x: false, y: false } },
    scales: { x: { time: true }, tokens: { range: (_u, _min, max) => [0, Math.max(max, 1)] }, usd: { range: (_u, _min, max) => [0, Math.max(max, 0.000001)] } },
    series: [
      { value: "{YYYY}-{MM}-{DD}" },
      { label: "Input tokens", scale: "tokens", stroke: "#1f4fd1", width: 2, points: { show: true }, value: (_u, value) => count(value) },
      { label: "Output tokens", scale: "tokens", stroke: "#9b4dca", width: 2, points: { show: true }, value: (_u, value) => count(value) },
      {
        label: "Cost",
        scale: "usd",
        stroke: "#067647",
        fill: "rgba(6, 118, 71, 0.08)",
        width: 2,
        points: { show: true },
        value: (_u, value) => (value === null ? "—" : usd(value.toFixed(6), "$0")),
      },
    ],
    axes: [
      { values: "{MMM} {D}" },
      { scale: "tokens", values: (_u, splits) => splits.map((value) => compact.format(value)), size: 56 },
      { scale: "usd", side: 1, grid: { show: false }, values: (_u, splits) => splits.map((value) => money.format(value)), size: 84 },
    ],
  };
}

/**
 * Cost and tokens per day (uPlot on a canvas), sized to its container and redrawn when that
 * resizes. The per-day table beside it carries the same figures for screen readers.
 */
export function UsageChart(props: { days: string[]; rows: UsageRow[] }) {
  const container = useRef<HTMLDivElement>(null);
  const data = columns(props.days, props.rows);
  const dataRef = useRef(data);
  dataRef.current = data;
  const plot = useRef<uPlot | null>(null);

  useEffect(() => {
    const element = container.current!;
    const chart = new uPlot(options(Math.max(element.clientWidth, 200)), dataRef.current, element);
    plot.current = chart;
    const observer = new ResizeObserver(() => chart.setSize({ width: Math.max(element.clientWidth, 200), height: HEIGHT }));
    observer.observe(element);
    return () => {
      observer.disconnect();
      chart.destroy();
      plot.current = null;
    };
  }, []);

  const signature = JSON.stringify(data);
  useEffect(() => {
    plot.current?.setData(dataRef.current);
  }, [signature]);

  return (
    <figure className={`card ${styles.chart}`}>
      <figcaption>Cost and tokens per day (UTC)</figcaption>
      <div ref={container} className={styles.plot} role="img" aria-label="Chart of cost, input tokens and output tokens per day" data-testid="usage-chart" />
    </figure>
  );
}
