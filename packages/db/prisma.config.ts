// Prisma CLI config (used by `prisma generate`). Migrations do not go through the Prisma CLI here:
// see src/migrate.ts (the native schema engine cannot be downloaded on these machines).
import { defineConfig } from "prisma/config";

export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  datasource: { url: process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/gateway" },
});
