import { describe, expect, it } from "vitest";
import { staleGeneratedFiles } from "./generate-client.ts";

describe("committed Prisma client", () => {
  it("is what prisma generate makes of schema.prisma (else: pnpm --filter @gateway/db generate)", async () => {
    expect(await staleGeneratedFiles()).toEqual([]);
  });
});
