import { newId } from "@gateway/contracts";
import type { Prisma } from "@gateway/db";

export type AuditAction =
  | "key.created"
  | "key.updated"
  | "key.rotated"
  | "key.revoked"
  | "customer.created"
  | "customer.updated"
  | "plan.created"
  | "subscription.created"
  | "subscription.canceled"
  | "subscription.renewed"
  | "subscription.lapsed";

/** Who made a change: the vendor, the token that acted (null for the operator CLI and the control plane's own sweeps), the request. */
export interface Actor {
  vendorId: string;
  tokenId: string | null;
  requestId: string | null;
}

type AuditWriter = { auditEntry: { create(args: { data: Prisma.AuditEntryUncheckedCreateInput }): Promise<unknown> } };

/**
 * Appends one audit entry in the caller's transaction, so the entry exists exactly when the change
 * does. `changes` holds field names and their new values, never a secret (no plaintext, no hash).
 */
/** `keyId`: the object changed (a key, or for customer.* / plan.* / subscription.* that object's id). */
export async function recordAudit(db: AuditWriter, actor: Actor, action: AuditAction, keyId: string, changes: Record<string, unknown>): Promise<void> {
  await db.auditEntry.create({
    data: { id: newId("aud"), vendorId: actor.vendorId, tokenId: actor.tokenId, requestId: actor.requestId, action, keyId, changes: changes as Prisma.InputJsonValue },
  });
}
