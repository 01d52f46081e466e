-- What an SRE sees (contract section 20): each request's upstream attempts, as the billing event
-- carries them, for the console's request view. Nullable with no default: adding it rewrites no row,
-- and rows of events without attempts stay NULL.

-- AlterTable
ALTER TABLE "usage_records" ADD COLUMN     "attempts" JSONB;
