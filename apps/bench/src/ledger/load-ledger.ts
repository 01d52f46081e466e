import type { PrismaClient } from "@gateway/db";

/** The synthetic ledger: its size and the instant its newest request finished ("now" for the queries). */
export interface LedgerShape {
  rows: number;
  vendors: number;
  keys: number;
  models: readonly string[];
  days: number;
  auditEntries: number;
  /** Requests finish evenly over `[end - days, end)`, oldest first, as the worker appends them. */
  end: Date;
}

export const MODELS = ["gpt-small", "gpt-large", "claude-small", "claude-large", "image-model", "reasoner"] as const;

/** The benchmark's vendors: `vnd_` + 32 hex characters, like newId("vnd"). */
export function vendorId(index: number): string {
  return `vnd_${index.toString(16).padStart(32, "0")}`;
}

/** The tables the load rewrites; their indexes and constraints are dropped for it and rebuilt after. */
const LOADED_TABLES = ["usage_records", "usage_aggregates", "usage_key_days", "usage_vendor_days", "audit_log"];

type Step = (label: string, sql: string) => Promise<void>;

/**
 * Fills a freshly migrated database in SQL alone (generate_series, INSERT ... SELECT): keys, the
 * ledger, its per-day tables exactly as the worker would have summed them, and audit entries.
 * Indexes and constraints of the big tables are built once after the rows are in, which is several
 * times faster than maintaining them row by row; they are the migrations' own definitions.
 * `prisma` must have a pool of one connection: the SET below holds for the session.
 */
export async function loadLedger(prisma: PrismaClient, shape: LedgerShape, log: (message: string) => void): Promise<void> {
  const step: Step = async (label, sql) => {
    const started = performance.now();
    await prisma.$executeRawUnsafe(sql);
    log(`${label}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  };
  await prisma.$executeRawUnsafe("SET maintenance_work_mem = '1GB'");
  await prisma.$executeRawUnsafe("SET work_mem = '256MB'");
  const rebuild = await dropIndexesAndConstraints(prisma);
  await loadKeys(step, shape);
  await loadRecords(step, shape);
  await step(
    "usage_aggregates",
    `INSERT INTO usage_aggregates (api_key_id, model, day, requests, input_tokens, output_tokens, cached_input_tokens,
       cache_write_tokens, reasoning_tokens, images, cost_nano, updated_at)
     SELECT api_key_id, model, (finished_at AT TIME ZONE 'UTC')::date, count(*), sum(input_tokens), sum(output_tokens),
       sum(cached_input_tokens), sum(cache_write_tokens), sum(reasoning_tokens), sum(images), sum(cost_nano), now()
     FROM usage_records GROUP BY 1, 2, 3`,
  );
  // The two rollups as the worker keeps them (same day, same stripe; see the ledger_reports migration).
  await step(
    "usage_key_days",
    `INSERT INTO usage_key_days (api_key_id, day, vendor_id, requests, input_tokens, output_tokens, cached_input_tokens, cache_write_tokens,
       reasoning_tokens, images, cost_nano, updated_at)
     SELECT api_key_id, (finished_at AT TIME ZONE 'UTC')::date, min(vendor_id), count(*), sum(input_tokens), sum(output_tokens),
       sum(cached_input_tokens), sum(cache_write_tokens), sum(reasoning_tokens), sum(images), sum(cost_nano), now()
     FROM usage_records GROUP BY 1, 2`,
  );
  await step(
    "usage_vendor_days",
    `INSERT INTO usage_vendor_days (vendor_id, day, model, server_option_id, shard, requests, input_tokens, output_tokens, cached_input_tokens,
       cache_write_tokens, reasoning_tokens, images, cost_nano, updated_at)
     SELECT r.vendor_id, (r.finished_at AT TIME ZONE 'UTC')::date, r.model, k.server_option_id, hashtext(r.request_id) & 15, count(*),
       sum(r.input_tokens), sum(r.output_tokens), sum(r.cached_input_tokens), sum(r.cache_write_tokens), sum(r.reasoning_tokens),
       sum(r.images), sum(r.cost_nano), now()
     FROM usage_records AS r JOIN api_keys AS k ON k.id = r.api_key_id GROUP BY 1, 2, 3, 4, 5`,
  );
  await loadAuditLog(step, shape);
  for (const [label, sql] of rebuild) await step(label, sql);
  // As autovacuum would have left old rows: statistics current, pages all-visible (index-only scans).
  for (const table of [...LOADED_TABLES, "api_keys"]) await step(`vacuum analyze ${table}`, `VACUUM ANALYZE ${table}`);
}

async function loadKeys(step: Step, shape: LedgerShape): Promise<void> {
  await step("vendors", `INSERT INTO vendors (id, name, updated_at) SELECT 'vnd_' || lpad(to_hex(v), 32, '0'), 'bench-' || v, now() FROM generate_series(0, ${shape.vendors - 1}) v`);
  await step("server options", `INSERT INTO server_options (id, name, updated_at) SELECT 'so_' || md5('so' || s), 'option-' || s, now() FROM generate_series(0, 3) s`);
  await step(
    "vendor server options",
    `INSERT INTO vendor_server_options (vendor_id, server_option_id) SELECT v.id, s.id FROM vendors v CROSS JOIN server_options s`,
  );
  // Key k belongs to vendor k % vendors and to option (k / vendors) % 4.
  await step(
    "api_keys",
    `INSERT INTO api_keys (id, vendor_id, server_option_id, name, key_hash, prefix, created_at, updated_at)
     SELECT 'key_' || md5('key' || k), 'vnd_' || lpad(to_hex(k % ${shape.vendors}), 32, '0'), 'so_' || md5('so' || ((k / ${shape.vendors}) % 4)),
       'key ' || k, md5('hash' || k), 'sk-' || substr(md5('prefix' || k), 1, 4), now(), now()
     FROM generate_series(0, ${shape.keys - 1}) k`,
  );
}

async function loadRecords(step: Step, shape: LedgerShape): Promise<void> {
  const spanSeconds = shape.days * 86_400;
  const models = `ARRAY[${shape.models.map((model) => `'${model}'`).join(", ")}]`;
  // Deterministic pseudo-random columns from hashes of the row number g (independent of its key):
  // models evenly spread, one request in 100 an error, one in 1,000 aborted by its client.
  await step(
    `usage_records (${shape.rows.toLocaleString("en-US")} rows)`,
    `INSERT INTO usage_records (request_id, api_key_id, vendor_id, model, endpoint, status, stream, estimated, input_tokens, output_tokens,
       cached_input_tokens, cache_write_tokens, reasoning_tokens, images, cost_nano, started_at, finished_at, ttfb_ms, created_at)
     SELECT 'req_' || md5(g::text), 'key_' || md5('key' || k), 'vnd_' || lpad(to_hex(k % ${shape.vendors}), 32, '0'),
       (${models})[1 + h % ${shape.models.length}],
       (ARRAY['chat.completions', 'messages', 'responses'])[1 + g % 3],
       CASE WHEN h / 8 % 1000 < 10 THEN 'error' WHEN h / 8 % 1000 = 10 THEN 'client_aborted' ELSE 'ok' END,
       g % 3 = 0, g % 500 = 0, tin, tout, tin / 4, tin / 10, tout / 3, (g % 97 = 0)::int, tin * 150 + tout * 600 + g % 1000,
       fin - ((g * 37) % 20000) * interval '1 millisecond', fin, (g * 13 % 800)::int, fin
     FROM (
       SELECT g, ((g * 7919) % ${shape.keys})::int AS k, abs(hashint8(g)::bigint) AS h, (g * 2654435761 % 4000)::int AS tin, (g * 40503 % 1000)::int AS tout,
         timestamptz '${shape.end.toISOString()}' - interval '${spanSeconds} seconds' + (g - 1) * (${spanSeconds}::double precision / ${shape.rows}) * interval '1 second' AS fin
       FROM generate_series(1::bigint, ${shape.rows}::bigint) g
     ) AS generated`,
  );
}

async function loadAuditLog(step: Step, shape: LedgerShape): Promise<void> {
  const spanSeconds = shape.days * 86_400;
  await step(
    `audit_log (${shape.auditEntries.toLocaleString("en-US")} entries)`,
    `INSERT INTO audit_log (id, vendor_id, token_id, request_id, action, key_id, changes, created_at)
     SELECT 'aud_' || md5('aud' || i), 'vnd_' || lpad(to_hex(i % ${shape.vendors}), 32, '0'), 'vtk_' || md5('token' || (i % 7)), 'req_' || md5('audit' || i),
       (ARRAY['key.created', 'key.updated', 'key.rotated', 'key.revoked'])[1 + i % 4], 'key_' || md5('key' || (i % ${shape.keys})),
       jsonb_build_object('name', 'key ' || i),
       timestamptz '${shape.end.toISOString()}' - interval '${spanSeconds} seconds' + i * (${spanSeconds}::double precision / ${shape.auditEntries}) * interval '1 second'
     FROM generate_series(0, ${shape.auditEntries - 1}) i`,
  );
}

/** Drops the loaded tables' secondary indexes and constraints; returns the statements that rebuild them. */
async function dropIndexesAndConstraints(prisma: PrismaClient): Promise<[string, string][]> {
  const constraints = await prisma.$queryRaw<{ table: string; name: string; definition: string; kind: string }[]>`
    SELECT conrelid::regclass::text AS table, conname AS name, pg_get_constraintdef(oid) AS definition, contype::text AS kind
    FROM pg_constraint WHERE conrelid::regclass::text = ANY(${LOADED_TABLES}) AND contype IN ('p', 'f')`;
  const indexes = await prisma.$queryRaw<{ name: string; definition: string }[]>`
    SELECT indexname AS name, indexdef AS definition FROM pg_indexes
    WHERE schemaname = 'public' AND tablename = ANY(${LOADED_TABLES}) AND indexname NOT IN (SELECT conname FROM pg_constraint)`;
  const foreignKeys = constraints.filter((constraint) => constraint.kind === "f");
  const primaryKeys = constraints.filter((constraint) => constraint.kind === "p");
  for (const constraint of [...foreignKeys, ...primaryKeys]) {
    await prisma.$executeRawUnsafe(`ALTER TABLE ${constraint.table} DROP CONSTRAINT "${constraint.name}"`);
  }
  for (const index of indexes) await prisma.$executeRawUnsafe(`DROP INDEX "${index.name}"`);
  return [
    ...primaryKeys.map((constraint): [string, string] => [`${constraint.name}`, `ALTER TABLE ${constraint.table} ADD CONSTRAINT "${constraint.name}" ${constraint.definition}`]),
    ...indexes.map((index): [string, string] => [index.name, index.definition]),
    ...foreignKeys.map((constraint): [string, string] => [`${constraint.name}`, `ALTER TABLE ${constraint.table} ADD CONSTRAINT "${constraint.name}" ${constraint.definition}`]),
  ];
}
