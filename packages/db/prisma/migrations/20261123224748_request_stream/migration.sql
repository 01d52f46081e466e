-- AlterTable
ALTER TABLE "usage_records" ADD COLUMN     "stream" BOOLEAN NOT NULL DEFAULT false;
