import type { PrismaClient } from "@gateway/db";

/** An upstream a vendor's traffic may reach, and which of the vendor's models it serves. */
export interface VendorUpstream {
  name: string;
  models: string[];
}

/**
 * The upstreams serving the models of the vendor's server options, by name. Upstreams are the
 * operator's: a vendor sees only those its own requests may be sent to, by name and the models
 * it serves, never a base URL or the secret's variable.
 */
export async function vendorUpstreams(prisma: PrismaClient, vendorId: string): Promise<VendorUpstream[]> {
  const vendorsModel = { model: { serverOptions: { some: { serverOption: { vendors: { some: { vendorId } } } } } } };
  const rows = await prisma.upstream.findMany({
    where: { routes: { some: vendorsModel } },
    select: { name: true, routes: { where: vendorsModel, select: { model: { select: { name: true } } } } },
    orderBy: { name: "asc" },
  });
  return rows.map((row) => ({ name: row.name, models: [...new Set(row.routes.map((route) => route.model.name))].sort() }));
}
