-- AlterTable
ALTER TABLE "upstreams" ADD COLUMN     "dialect" JSONB NOT NULL DEFAULT '{}';
