-- The vendor reports of contract section 9 (GET /api/usage, GET /api/requests) at 10 million
-- ledger rows: two per-day rollups the billing worker keeps in the statement that writes each
-- ledger row, and a ledger index that serves the request log and the partial days of a report
-- from the index alone. Plans and timings: docs/ledger-queries.md.
--
-- Apply with the billing workers stopped (the queue holds the events meanwhile): the rollups are
-- filled from usage_records below, and a request recorded by an older worker after that would be
-- missing from them. CREATE INDEX blocks writes to usage_records while it builds (about 40 s at
-- 10 million rows on 2 cores).

-- CreateTable
CREATE TABLE "usage_key_days" (
    "api_key_id" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "vendor_id" TEXT NOT NULL,
    "requests" INTEGER NOT NULL DEFAULT 0,
    "input_tokens" BIGINT NOT NULL DEFAULT 0,
    "output_tokens" BIGINT NOT NULL DEFAULT 0,
    "cached_input_tokens" BIGINT NOT NULL DEFAULT 0,
    "cache_write_tokens" BIGINT NOT NULL DEFAULT 0,
    "reasoning_tokens" BIGINT NOT NULL DEFAULT 0,
    "images" INTEGER NOT NULL DEFAULT 0,
    "cost_nano" BIGINT NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "usage_key_days_pkey" PRIMARY KEY ("api_key_id","day")
);

-- CreateTable
CREATE TABLE "usage_vendor_days" (
    "vendor_id" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "model" TEXT NOT NULL,
    "server_option_id" TEXT NOT NULL,
    "shard" SMALLINT NOT NULL,
    "requests" INTEGER NOT NULL DEFAULT 0,
    "input_tokens" BIGINT NOT NULL DEFAULT 0,
    "output_tokens" BIGINT NOT NULL DEFAULT 0,
    "cached_input_tokens" BIGINT NOT NULL DEFAULT 0,
    "cache_write_tokens" BIGINT NOT NULL DEFAULT 0,
    "reasoning_tokens" BIGINT NOT NULL DEFAULT 0,
    "images" INTEGER NOT NULL DEFAULT 0,
    "cost_nano" BIGINT NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "usage_vendor_days_pkey" PRIMARY KEY ("vendor_id","day","model","server_option_id","shard")
);

-- Backfill both rollups from the ledger, with the day and stripe the worker uses (record-usage.ts).
INSERT INTO "usage_key_days" ("api_key_id", "day", "vendor_id", "requests", "input_tokens", "output_tokens", "cached_input_tokens",
    "cache_write_tokens", "reasoning_tokens", "images", "cost_nano", "updated_at")
SELECT "api_key_id", ("finished_at" AT TIME ZONE 'UTC')::date, min("vendor_id"), count(*), sum("input_tokens"), sum("output_tokens"),
    sum("cached_input_tokens"), sum("cache_write_tokens"), sum("reasoning_tokens"), sum("images"), sum("cost_nano"), now()
FROM "usage_records"
GROUP BY 1, 2;

INSERT INTO "usage_vendor_days" ("vendor_id", "day", "model", "server_option_id", "shard", "requests", "input_tokens", "output_tokens",
    "cached_input_tokens", "cache_write_tokens", "reasoning_tokens", "images", "cost_nano", "updated_at")
SELECT r."vendor_id", (r."finished_at" AT TIME ZONE 'UTC')::date, r."model", k."server_option_id", hashtext(r."request_id") & 15, count(*),
    sum(r."input_tokens"), sum(r."output_tokens"), sum(r."cached_input_tokens"), sum(r."cache_write_tokens"), sum(r."reasoning_tokens"),
    sum(r."images"), sum(r."cost_nano"), now()
FROM "usage_records" AS r
JOIN "api_keys" AS k ON k."id" = r."api_key_id"
GROUP BY 1, 2, 3, 4, 5;

-- CreateIndex
CREATE INDEX "usage_key_days_vendor_report_idx" ON "usage_key_days"("vendor_id", "day", "api_key_id", "requests", "input_tokens", "output_tokens", "cached_input_tokens", "cache_write_tokens", "reasoning_tokens", "images", "cost_nano");

-- CreateIndex (replaces usage_records_vendor_id_finished_at_idx, a prefix of it)
CREATE INDEX "usage_records_vendor_ledger_idx" ON "usage_records"("vendor_id", "finished_at", "request_id", "api_key_id", "model", "status", "input_tokens", "output_tokens", "cached_input_tokens", "cache_write_tokens", "reasoning_tokens", "images", "cost_nano");

-- DropIndex
DROP INDEX "usage_records_vendor_id_finished_at_idx";
