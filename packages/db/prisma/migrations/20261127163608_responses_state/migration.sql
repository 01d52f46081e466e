-- CreateTable
CREATE TABLE "stored_responses" (
    "id" TEXT NOT NULL,
    "vendor_id" TEXT NOT NULL,
    "api_key_id" TEXT NOT NULL,
    "conversation_id" TEXT,
    "model" TEXT NOT NULL,
    "response" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "stored_responses_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "stored_response_items" (
    "response_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "item" JSONB NOT NULL,

    CONSTRAINT "stored_response_items_pkey" PRIMARY KEY ("response_id","kind","position")
);

-- CreateTable
CREATE TABLE "conversations" (
    "id" TEXT NOT NULL,
    "vendor_id" TEXT NOT NULL,
    "api_key_id" TEXT NOT NULL,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "conversations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "conversation_items" (
    "conversation_id" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "item" JSONB NOT NULL,

    CONSTRAINT "conversation_items_pkey" PRIMARY KEY ("conversation_id","id")
);

-- CreateIndex
CREATE INDEX "stored_responses_expires_at_idx" ON "stored_responses"("expires_at");

-- CreateIndex
CREATE INDEX "conversations_expires_at_idx" ON "conversations"("expires_at");

-- CreateIndex
CREATE INDEX "conversation_items_conversation_id_position_idx" ON "conversation_items"("conversation_id", "position");

-- AddForeignKey
ALTER TABLE "stored_response_items" ADD CONSTRAINT "stored_response_items_response_id_fkey" FOREIGN KEY ("response_id") REFERENCES "stored_responses"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "conversation_items" ADD CONSTRAINT "conversation_items_conversation_id_fkey" FOREIGN KEY ("conversation_id") REFERENCES "conversations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
