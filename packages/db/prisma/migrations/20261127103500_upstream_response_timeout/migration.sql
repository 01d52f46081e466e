-- Money cannot leak (contract section 14): a non-streaming call's upstream timeout is the upstream's
-- own `timeouts.response_ms`. Existing rows get the gateway file's default (the SDKs' 10 minutes),
-- and the next apply writes what the file says.

-- AlterTable
ALTER TABLE "upstreams" ADD COLUMN     "response_timeout_ms" INTEGER NOT NULL DEFAULT 600000;
