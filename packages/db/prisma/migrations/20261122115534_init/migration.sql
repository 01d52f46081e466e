-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "vendors" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "vendors_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "vendor_tokens" (
    "id" TEXT NOT NULL,
    "vendor_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "scopes" TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "vendor_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "server_options" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "price_multiplier_bps" INTEGER NOT NULL DEFAULT 10000,
    "rpm" INTEGER,
    "tpm" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "server_options_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "vendor_server_options" (
    "vendor_id" TEXT NOT NULL,
    "server_option_id" TEXT NOT NULL,

    CONSTRAINT "vendor_server_options_pkey" PRIMARY KEY ("vendor_id","server_option_id")
);

-- CreateTable
CREATE TABLE "upstreams" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "shape" TEXT NOT NULL,
    "base_url" TEXT NOT NULL,
    "secret_env" TEXT,
    "priority" INTEGER NOT NULL DEFAULT 0,
    "weight" INTEGER NOT NULL DEFAULT 1,
    "connect_timeout_ms" INTEGER NOT NULL,
    "first_byte_timeout_ms" INTEGER NOT NULL,
    "supports_responses" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "upstreams_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "models" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "display_name" TEXT NOT NULL,
    "owned_by" TEXT NOT NULL,
    "input_price" BIGINT NOT NULL DEFAULT 0,
    "output_price" BIGINT NOT NULL DEFAULT 0,
    "cached_input_price" BIGINT NOT NULL DEFAULT 0,
    "image_price" BIGINT NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "models_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "model_routes" (
    "id" TEXT NOT NULL,
    "model_id" TEXT NOT NULL,
    "upstream_id" TEXT NOT NULL,
    "upstream_model" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "weight" INTEGER NOT NULL DEFAULT 1,

    CONSTRAINT "model_routes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "server_option_models" (
    "server_option_id" TEXT NOT NULL,
    "model_id" TEXT NOT NULL,
    "input_price" BIGINT,
    "output_price" BIGINT,
    "cached_input_price" BIGINT,
    "image_price" BIGINT,

    CONSTRAINT "server_option_models_pkey" PRIMARY KEY ("server_option_id","model_id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" TEXT NOT NULL,
    "vendor_id" TEXT NOT NULL,
    "server_option_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "key_hash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'active',
    "expires_at" TIMESTAMPTZ(3),
    "quota_nano" BIGINT,
    "rpm" INTEGER,
    "tpm" INTEGER,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "idempotency_records" (
    "vendor_id" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "request_hash" TEXT NOT NULL,
    "response_ciphertext" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "idempotency_records_pkey" PRIMARY KEY ("vendor_id","key")
);

-- CreateTable
CREATE TABLE "usage_records" (
    "request_id" TEXT NOT NULL,
    "api_key_id" TEXT NOT NULL,
    "vendor_id" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "upstream" TEXT,
    "upstream_model" TEXT,
    "endpoint" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "estimated" BOOLEAN NOT NULL DEFAULT false,
    "input_tokens" INTEGER NOT NULL DEFAULT 0,
    "output_tokens" INTEGER NOT NULL DEFAULT 0,
    "cached_input_tokens" INTEGER NOT NULL DEFAULT 0,
    "cache_write_tokens" INTEGER NOT NULL DEFAULT 0,
    "reasoning_tokens" INTEGER NOT NULL DEFAULT 0,
    "images" INTEGER NOT NULL DEFAULT 0,
    "cost_nano" BIGINT NOT NULL DEFAULT 0,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "finished_at" TIMESTAMPTZ(3) NOT NULL,
    "ttfb_ms" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "usage_records_pkey" PRIMARY KEY ("request_id")
);

-- CreateTable
CREATE TABLE "usage_aggregates" (
    "api_key_id" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "requests" INTEGER NOT NULL DEFAULT 0,
    "input_tokens" BIGINT NOT NULL DEFAULT 0,
    "output_tokens" BIGINT NOT NULL DEFAULT 0,
    "cached_input_tokens" BIGINT NOT NULL DEFAULT 0,
    "images" INTEGER NOT NULL DEFAULT 0,
    "cost_nano" BIGINT NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "usage_aggregates_pkey" PRIMARY KEY ("api_key_id","model","day")
);

-- CreateIndex
CREATE UNIQUE INDEX "vendors_name_key" ON "vendors"("name");

-- CreateIndex
CREATE UNIQUE INDEX "vendor_tokens_token_hash_key" ON "vendor_tokens"("token_hash");

-- CreateIndex
CREATE INDEX "vendor_tokens_vendor_id_idx" ON "vendor_tokens"("vendor_id");

-- CreateIndex
CREATE UNIQUE INDEX "server_options_name_key" ON "server_options"("name");

-- CreateIndex
CREATE INDEX "vendor_server_options_server_option_id_idx" ON "vendor_server_options"("server_option_id");

-- CreateIndex
CREATE UNIQUE INDEX "upstreams_name_key" ON "upstreams"("name");

-- CreateIndex
CREATE UNIQUE INDEX "models_name_key" ON "models"("name");

-- CreateIndex
CREATE INDEX "model_routes_upstream_id_idx" ON "model_routes"("upstream_id");

-- CreateIndex
CREATE UNIQUE INDEX "model_routes_model_id_position_key" ON "model_routes"("model_id", "position");

-- CreateIndex
CREATE INDEX "server_option_models_model_id_idx" ON "server_option_models"("model_id");

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_key_hash_key" ON "api_keys"("key_hash");

-- CreateIndex
CREATE INDEX "api_keys_vendor_id_created_at_idx" ON "api_keys"("vendor_id", "created_at");

-- CreateIndex
CREATE INDEX "api_keys_server_option_id_idx" ON "api_keys"("server_option_id");

-- CreateIndex
CREATE INDEX "idempotency_records_expires_at_idx" ON "idempotency_records"("expires_at");

-- CreateIndex
CREATE INDEX "usage_records_api_key_id_finished_at_idx" ON "usage_records"("api_key_id", "finished_at");

-- CreateIndex
CREATE INDEX "usage_records_vendor_id_finished_at_idx" ON "usage_records"("vendor_id", "finished_at");

-- AddForeignKey
ALTER TABLE "vendor_tokens" ADD CONSTRAINT "vendor_tokens_vendor_id_fkey" FOREIGN KEY ("vendor_id") REFERENCES "vendors"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "vendor_server_options" ADD CONSTRAINT "vendor_server_options_vendor_id_fkey" FOREIGN KEY ("vendor_id") REFERENCES "vendors"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "vendor_server_options" ADD CONSTRAINT "vendor_server_options_server_option_id_fkey" FOREIGN KEY ("server_option_id") REFERENCES "server_options"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "model_routes" ADD CONSTRAINT "model_routes_model_id_fkey" FOREIGN KEY ("model_id") REFERENCES "models"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "model_routes" ADD CONSTRAINT "model_routes_upstream_id_fkey" FOREIGN KEY ("upstream_id") REFERENCES "upstreams"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "server_option_models" ADD CONSTRAINT "server_option_models_server_option_id_fkey" FOREIGN KEY ("server_option_id") REFERENCES "server_options"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "server_option_models" ADD CONSTRAINT "server_option_models_model_id_fkey" FOREIGN KEY ("model_id") REFERENCES "models"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_vendor_id_fkey" FOREIGN KEY ("vendor_id") REFERENCES "vendors"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_server_option_id_fkey" FOREIGN KEY ("server_option_id") REFERENCES "server_options"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "idempotency_records" ADD CONSTRAINT "idempotency_records_vendor_id_fkey" FOREIGN KEY ("vendor_id") REFERENCES "vendors"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "usage_records" ADD CONSTRAINT "usage_records_api_key_id_fkey" FOREIGN KEY ("api_key_id") REFERENCES "api_keys"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "usage_aggregates" ADD CONSTRAINT "usage_aggregates_api_key_id_fkey" FOREIGN KEY ("api_key_id") REFERENCES "api_keys"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
