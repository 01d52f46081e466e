-- Model capabilities (contract section 15) from the gateway file: `max_output_tokens` caps every
-- request output bound (section 14). Existing rows get the safe default of the gateway file (4096
-- output tokens, which every model accepts) until the next apply writes what the file says.
-- (No semicolons or unpaired quotes in these comments: the engine splits statements on them.)

-- AlterTable
ALTER TABLE "models" ADD COLUMN     "context_window" INTEGER NOT NULL DEFAULT 128000,
ADD COLUMN     "max_output_tokens" INTEGER NOT NULL DEFAULT 4096,
ADD COLUMN     "mid_conversation_system" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "reasoning" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "sampling" BOOLEAN NOT NULL DEFAULT true,
ADD COLUMN     "tools" BOOLEAN NOT NULL DEFAULT true,
ADD COLUMN     "vision" BOOLEAN NOT NULL DEFAULT true;

