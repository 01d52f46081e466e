import { newId } from "@gateway/contracts";
import type { GatewayFile } from "@gateway/config";
import { Prisma, type PrismaClient } from "@gateway/db";
import type { RecordStore } from "@gateway/redis-store";
import { desiredState, sameFields } from "./desired-state.ts";
import { publishSnapshot } from "../snapshot/publish-snapshot.ts";

export interface ApplyReport {
  created: number;
  updated: number;
  deleted: number;
  snapshotVersion: number;
}

type Tx = Parameters<Parameters<PrismaClient["$transaction"]>[0]>[0];

/** Advisory lock key of gateway file applies ("gwapply" in ASCII, any constant would do). */
const APPLY_LOCK = 0x67776170706c79;

/**
 * Makes Postgres hold exactly what the file says, writing only what differs (a second apply of
 * the same file changes nothing), then publishes the routing snapshot to the proxies.
 * Upstreams and models missing from the file are removed; server options and vendors are kept,
 * because keys hang off them.
 */
export async function applyGatewayFile(prisma: PrismaClient, records: RecordStore, file: GatewayFile): Promise<ApplyReport> {
  const want = desiredState(file);
  const report = { created: 0, updated: 0, deleted: 0 };
  await prisma.$transaction(async (tx: Tx) => {
    // Control plane replicas starting together apply the same file at once: this lock makes them
    // take turns, so the second finds everything in place instead of a unique-key violation. It is
    // a transaction lock (released at commit), which PgBouncer in transaction mode keeps intact.
    await tx.$queryRaw`SELECT 1 AS locked FROM pg_advisory_xact_lock(${APPLY_LOCK}::bigint)`;
    const upstreamIds = new Map<string, string>();
    const existingUpstreams = new Map((await tx.upstream.findMany()).map((row) => [row.name, row]));
    for (const row of want.upstreams) {
      const have = existingUpstreams.get(row.name);
      if (!have) {
        const created = await tx.upstream.create({ data: { id: newId("up"), ...row } });
        upstreamIds.set(row.name, created.id);
        report.created += 1;
      } else {
        upstreamIds.set(row.name, have.id);
        if (!sameFields(have, row)) {
          await tx.upstream.update({ where: { id: have.id }, data: row });
          report.updated += 1;
        }
      }
    }
    const staleUpstreams = [...existingUpstreams.values()].filter((row) => !upstreamIds.has(row.name));
    if (staleUpstreams.length > 0) {
      report.deleted += (await tx.upstream.deleteMany({ where: { id: { in: staleUpstreams.map((row) => row.id) } } })).count;
    }

    const modelIds = new Map<string, string>();
    const existingModels = new Map((await tx.model.findMany({ include: { routes: { orderBy: { position: "asc" } } } })).map((row) => [row.name, row]));
    for (const model of want.models) {
      const have = existingModels.get(model.row.name);
      let modelId: string;
      if (!have) {
        modelId = (await tx.model.create({ data: { id: newId("mdl"), ...model.row } })).id;
        report.created += 1;
      } else {
        modelId = have.id;
        if (!sameFields(have, model.row)) {
          await tx.model.update({ where: { id: have.id }, data: model.row });
          report.updated += 1;
        }
      }
      modelIds.set(model.row.name, modelId);
      const routes = model.targets.map((t) => ({ upstreamId: upstreamIds.get(t.upstream)!, upstreamModel: t.upstreamModel, position: t.position, weight: t.weight, priority: t.priority }));
      const haveRoutes = have?.routes ?? [];
      const routesSame = haveRoutes.length === routes.length && routes.every((route, index) => sameFields(haveRoutes[index]!, route));
      if (!routesSame) {
        await tx.modelRoute.deleteMany({ where: { modelId } });
        await tx.modelRoute.createMany({ data: routes.map((route) => ({ id: newId("rt"), modelId, ...route })) });
        report.updated += have ? 1 : 0;
      }
    }
    const staleModels = [...existingModels.values()].filter((row) => !modelIds.has(row.name));
    if (staleModels.length > 0) {
      report.deleted += (await tx.model.deleteMany({ where: { id: { in: staleModels.map((row) => row.id) } } })).count;
    }

    await applyServerOptions(tx, want, modelIds, report);
    await applyVendors(tx, want, report);
  });
  const snapshotVersion = await publishSnapshot(prisma, records);
  return { ...report, snapshotVersion };
}

async function applyServerOptions(tx: Tx, want: ReturnType<typeof desiredState>, modelIds: Map<string, string>, report: { created: number; updated: number }) {
  const existing = new Map((await tx.serverOption.findMany({ include: { models: true } })).map((row) => [row.name, row]));
  for (const option of want.serverOptions) {
    const have = existing.get(option.row.name);
    let optionId: string;
    if (!have) {
      optionId = (await tx.serverOption.create({ data: { id: newId("so"), ...option.row } })).id;
      report.created += 1;
    } else {
      optionId = have.id;
      if (!sameFields(have, option.row)) {
        await tx.serverOption.update({ where: { id: have.id }, data: option.row });
        report.updated += 1;
      }
    }
    const links = option.models.map(({ model, ...prices }) => ({ modelId: modelIds.get(model)!, ...prices }));
    const haveLinks = new Map((have?.models ?? []).map((link) => [link.modelId, link]));
    const linksSame = haveLinks.size === links.length && links.every((link) => {
      const current = haveLinks.get(link.modelId);
      return current !== undefined && sameFields(current, link);
    });
    if (!linksSame) {
      await tx.serverOptionModel.deleteMany({ where: { serverOptionId: optionId } });
      // A JSON column is set to SQL NULL with Prisma.DbNull, not null (tiers of the model's own).
      await tx.serverOptionModel.createMany({ data: links.map((link) => ({ serverOptionId: optionId, ...link, priceTiers: link.priceTiers ?? Prisma.DbNull })) });
      report.updated += have ? 1 : 0;
    }
  }
}

async function applyVendors(tx: Tx, want: ReturnType<typeof desiredState>, report: { created: number; updated: number }) {
  const options = new Map((await tx.serverOption.findMany({ select: { id: true, name: true } })).map((row) => [row.name, row.id]));
  const existing = new Map((await tx.vendor.findMany({ include: { serverOptions: true } })).map((row) => [row.name, row]));
  for (const vendor of want.vendors) {
    const have = existing.get(vendor.name);
    const vendorId = have?.id ?? (await tx.vendor.create({ data: { id: newId("vnd"), name: vendor.name } })).id;
    if (!have) report.created += 1;
    const wantIds = vendor.serverOptions.map((name) => options.get(name)!).sort();
    const haveIds = (have?.serverOptions ?? []).map((link) => link.serverOptionId).sort();
    if (wantIds.join(",") !== haveIds.join(",")) {
      await tx.vendorServerOption.deleteMany({ where: { vendorId } });
      await tx.vendorServerOption.createMany({ data: wantIds.map((serverOptionId) => ({ vendorId, serverOptionId })) });
      report.updated += have ? 1 : 0;
    }
  }
}
