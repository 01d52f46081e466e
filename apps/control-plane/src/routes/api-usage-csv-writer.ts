import { once } from "node:events";
import type { Request, Response } from "express";
import { Prisma, type PrismaClient } from "@gateway/db";

/**
 * CSV exports (contract section 19): RFC 4180 text, CRLF line ends, a header row of the JSON rows'
 * field names, then one line per row, written as the rows come off a Postgres cursor.
 *
 * Quoting: every text cell is quoted ("...", a quote inside doubled), so commas, quotes and line
 * breaks inside a name stay in their cell; numbers, booleans and empty (null) cells are bare.
 *
 * Formula injection: a cell whose text starts with `=`, `+`, `-`, `@`, a tab or a carriage return
 * would be run as a formula by a spreadsheet opening the file, so it gets a leading apostrophe
 * (`'=SUM(A1)`): spreadsheets show it as text. So that the export stays lossless, a cell that
 * itself starts with an apostrophe gets one more; a reader that removes one leading apostrophe from
 * a cell that has one gets the value back exactly (`unguardCell`). The gateway's own numbers are
 * never negative, so only names, ids and other text can be affected.
 */
const FORMULA_START = /^[=+\-@\t\r']/;

export function guardCell(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/** The inverse of `guardCell`, for readers that want the stored value. */
export function unguardCell(text: string): string {
  return text.startsWith("'") ? text.slice(1) : text;
}

export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "number" || typeof value === "bigint") return guardCell(String(value));
  if (typeof value === "boolean") return value ? "true" : "false";
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return `"${guardCell(text).replaceAll('"', '""')}"`;
}

export function csvLine(values: readonly unknown[]): string {
  return `${values.map(csvCell).join(",")}\r\n`;
}

/** Rows fetched from the cursor per round trip. */
const FETCH_ROWS = 500;
/** Longest an export may hold its transaction (and its snapshot). */
const EXPORT_TIMEOUT_MS = 15 * 60_000;

/**
 * Streams `query` as CSV: `columns` is the header row, `toCells` maps one fetched row to its cells.
 * The query runs in one transaction as a server-side cursor (DECLARE ... NO SCROLL, FETCH 500 at a
 * time), so only one fetch's rows are ever in memory and the whole file is one snapshot; each
 * write waits for the socket to drain. A client that goes away stops the fetching. A failure after
 * the header is out cannot become an error response: the connection is cut, so the client sees a
 * broken transfer rather than a short file that looks complete.
 */
export async function streamCsv<Row>(
  prisma: PrismaClient,
  request: Request,
  response: Response,
  options: { filename: string; columns: readonly string[]; query: Prisma.Sql; toCells(row: Row): unknown[] },
): Promise<void> {
  let gone = false;
  const onClose = () => {
    gone = true;
  };
  response.on("close", onClose);
  request.on("aborted", onClose);
  let started = false;
  const write = async (text: string) => {
    if (!started) {
      started = true;
      response.status(200);
      response.setHeader("content-type", "text/csv; charset=utf-8; header=present");
      response.setHeader("content-disposition", `attachment; filename="${options.filename}"`);
      response.setHeader("cache-control", "no-store");
    }
    if (!response.write(text)) await Promise.race([once(response, "drain"), once(response, "close")]);
    if (gone) throw new ExportAborted();
  };
  try {
    await prisma.$transaction(
      async (tx) => {
        await tx.$queryRaw`SELECT set_config('max_parallel_workers_per_gather', '0', true), set_config('jit', 'off', true)`;
        await tx.$executeRaw`DECLARE gateway_export NO SCROLL CURSOR FOR ${options.query}`;
        await write(csvLine(options.columns));
        for (;;) {
          const rows = await tx.$queryRaw<Row[]>`FETCH ${Prisma.raw(String(FETCH_ROWS))} FROM gateway_export`;
          if (rows.length > 0) await write(rows.map((row) => csvLine(options.toCells(row))).join(""));
          if (rows.length < FETCH_ROWS) break;
        }
        await tx.$executeRaw`CLOSE gateway_export`;
      },
      { maxWait: 10_000, timeout: EXPORT_TIMEOUT_MS },
    );
  } catch (error) {
    if (error instanceof ExportAborted || gone) return;
    if (!started && !response.headersSent) throw error;
    response.destroy(error instanceof Error ? error : new Error(String(error)));
    return;
  } finally {
    response.off("close", onClose);
  }
  response.end();
}

class ExportAborted extends Error {
  constructor() {
    super("the client closed the export");
  }
}

/** `<name>-<from>-<to>.csv` with the window's dates, for the download's file name. */
export function exportFilename(name: string, from: Date | undefined, to: Date | undefined): string {
  const day = (date: Date | undefined) => (date === undefined ? "all" : date.toISOString().slice(0, 10));
  return `${name}-${day(from)}-${day(to)}.csv`;
}
