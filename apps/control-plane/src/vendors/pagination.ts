import { GatewayError } from "@gateway/contracts";
import { z } from "zod";
import { pageQuerySchema } from "./api-schemas.ts";
import { parseInput } from "./parse-input.ts";

/**
 * Keyset pagination for every list (contract section 6): `?limit=&cursor=`, newest or
 * alphabetical first, fetched as `limit + 1` rows so `has_more` needs no count. The cursor is the
 * position of the last item (base64url JSON): opaque to callers, stable while rows are added.
 */
export interface List<Item> {
  object: "list";
  data: Item[];
  has_more: boolean;
  next_cursor: string | null;
}

export interface PageRequest<Position> {
  limit: number;
  /** The position after which this page starts; undefined for the first page. */
  after: Position | undefined;
}

/** Reads `?limit=&cursor=`; 400 naming `limit` or `cursor` when either is bad. */
export function readPageRequest<Schema extends z.ZodType>(query: unknown, positionSchema: Schema): PageRequest<z.output<Schema>> {
  const { limit, cursor } = parseInput(pageQuerySchema, query, "query");
  return { limit, after: cursor === undefined ? undefined : decodeCursor(cursor, positionSchema) };
}

/** `rows` as fetched with `take: limit + 1`, in list order. */
export function toList<Row, Item>(rows: Row[], limit: number, toItem: (row: Row) => Item, positionOf: (row: Row) => unknown): List<Item> {
  const page = rows.slice(0, limit);
  const hasMore = rows.length > limit;
  return {
    object: "list",
    data: page.map(toItem),
    has_more: hasMore,
    next_cursor: hasMore && page.length > 0 ? encodeCursor(positionOf(page.at(-1)!)) : null,
  };
}

export function encodeCursor(position: unknown): string {
  return Buffer.from(JSON.stringify(position), "utf8").toString("base64url");
}

export function decodeCursor<Schema extends z.ZodType>(cursor: string, positionSchema: Schema): z.output<Schema> {
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    raw = undefined;
  }
  const parsed = positionSchema.safeParse(raw);
  if (!parsed.success) throw new GatewayError("invalid_body", "cursor: not a cursor this list returned", { param: "cursor" });
  return parsed.data;
}

// Newest-first lists (keys, customers, plans, subscriptions, wallet entries, payments): a row's
// position is its creation time and id; the cursor is the client's text, so a date Postgres cannot
// store (year 0000) must be a 400, not a 500.

/** The cursor position of a newest-first list whose ids start with `prefix_`. */
export function newestFirstPosition(prefix: string) {
  return z.object({
    createdAt: z.iso.datetime().refine((value) => Number(value.slice(0, 4)) >= 1970, "out of range"),
    id: z.string().startsWith(`${prefix}_`),
  });
}

/** Prisma's `where` for the rows after `after` in newest-first order; nothing for the first page. */
export function newestFirstAfter(after: { createdAt: string; id: string } | undefined) {
  if (!after) return {};
  const createdAt = new Date(after.createdAt);
  return { OR: [{ createdAt: { lt: createdAt } }, { createdAt, id: { lt: after.id } }] };
}

/** Prisma's `orderBy` of a newest-first list. */
export const NEWEST_FIRST: [{ createdAt: "desc" }, { id: "desc" }] = [{ createdAt: "desc" }, { id: "desc" }];

/** A row's position in a newest-first list, as its cursor holds it. */
export function newestFirstPositionOf(row: { createdAt: Date; id: string }): { createdAt: string; id: string } {
  return { createdAt: row.createdAt.toISOString(), id: row.id };
}
