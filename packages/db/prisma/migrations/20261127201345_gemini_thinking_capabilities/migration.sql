-- AlterTable
ALTER TABLE "models" ADD COLUMN     "can_disable_thinking" BOOLEAN NOT NULL DEFAULT true,
ADD COLUMN     "thinking_style" TEXT NOT NULL DEFAULT 'budget';
