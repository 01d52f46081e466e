-- Real clients, unmodified (contract section 11): model aliases and dropped request fields, the
-- betas an upstream never receives, target priorities, strict_params. Existing rows get the
-- defaults the gateway file gives, and the next apply writes what the file says.

-- AlterTable
ALTER TABLE "model_routes" ADD COLUMN     "priority" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "models" ADD COLUMN     "aliases" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "drop_params" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "position" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "server_options" ADD COLUMN     "strict_params" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "upstreams" ADD COLUMN     "drop_betas" TEXT[] DEFAULT ARRAY['oauth-2025-04-20']::TEXT[];
