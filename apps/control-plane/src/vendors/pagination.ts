import { GatewayError } from "@gateway/contracts";
import type { z } from "zod";
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
