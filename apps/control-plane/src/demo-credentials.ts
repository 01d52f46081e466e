import { readFile, writeFile } from "node:fs/promises";
import { hashSecret } from "@gateway/contracts";
import type { ControlPlaneServices } from "./services.ts";
import { mintKey } from "./keys/key-service.ts";
import { createVendorToken, VENDOR_SCOPES } from "./vendors/vendor-tokens.ts";

interface DemoCredentials {
  apiKey: string;
  vendorToken: string;
}

/**
 * The quick start's demo key and vendor token. Only hashes live in the database, so the plaintexts
 * are kept in a git-ignored file; a second run reuses them while they are still valid.
 */
export async function demoCredentials(services: ControlPlaneServices, file: string, vendorName = "demo", serverOption = "standard"): Promise<DemoCredentials> {
  const prisma = services.db.prisma;
  const saved = await readFile(file, "utf8").then((text) => JSON.parse(text) as Partial<DemoCredentials>, () => ({}) as Partial<DemoCredentials>);
  const vendor = await prisma.vendor.findUniqueOrThrow({ where: { name: vendorName } });

  let apiKey = saved.apiKey;
  const keyRow = apiKey ? await prisma.apiKey.findUnique({ where: { keyHash: hashSecret(apiKey) } }) : null;
  if (!apiKey || keyRow?.status !== "active") {
    const minted = await mintKey(prisma, services.records, { vendorId: vendor.id, serverOption, name: "demo key", quotaNano: 10_000_000_000n, expiresAt: null, rpm: null, tpm: null, metadata: { demo: true } });
    apiKey = minted.plaintext;
  }
  let vendorToken = saved.vendorToken;
  const tokenRow = vendorToken ? await prisma.vendorToken.findUnique({ where: { tokenHash: hashSecret(vendorToken) } }) : null;
  if (!vendorToken || !tokenRow || tokenRow.revokedAt) {
    vendorToken = (await createVendorToken(prisma, { vendor: vendorName, name: "demo token", scopes: VENDOR_SCOPES })).plaintext;
  }
  const credentials = { apiKey, vendorToken };
  await writeFile(file, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  return credentials;
}
