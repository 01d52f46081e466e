import type { ReactNode } from "react";
import styles from "./data-table.module.css";

export interface Column<Row> {
  header: string;
  cell(row: Row): ReactNode;
  /** Right-aligned figures. */
  numeric?: boolean;
}

/**
 * A table that becomes one card per row on a phone: each cell then shows its column's header
 * (data-label) beside the value, so nothing needs horizontal scrolling.
 */
export function DataTable<Row>(props: { caption: string; columns: Column<Row>[]; rows: Row[]; rowKey(row: Row): string; testId?: string }) {
  return (
    <div className={styles.wrap}>
      <table className={styles.table} data-testid={props.testId}>
        <caption className="visually-hidden">{props.caption}</caption>
        <thead>
          <tr>
            {props.columns.map((column) => (
              <th key={column.header} scope="col" className={column.numeric ? styles.numeric : undefined}>
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((row) => (
            <tr key={props.rowKey(row)} data-row={props.rowKey(row)}>
              {props.columns.map((column) => (
                <td key={column.header} data-label={column.header} className={column.numeric ? styles.numeric : undefined}>
                  {column.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
