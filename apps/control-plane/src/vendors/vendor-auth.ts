import type { NextFunction, Request, Response } from "express";
import { GatewayError, hashesEqual, hashSecret } from "@gateway/contracts";
import type { ControlPlaneServices } from "../services.ts";
import type { Actor } from "../keys/audit.ts";
import { VENDOR_SCOPES, type VendorScope } from "./vendor-tokens.ts";

/** Who is calling the vendor API: set by `vendorAuth`, read by every /api route after it. */
export interface VendorPrincipal {
  vendorId: string;
  vendorName: string;
  tokenId: string;
  scopes: ReadonlySet<VendorScope>;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      vendor?: VendorPrincipal;
    }
  }
}

/** `last_used_at` is a hint for operators; writing it on every call would cost a write per call. */
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * `Authorization: Bearer vt_...` -> the hash -> a VendorToken row that is not revoked. Every
 * failure is the same 401 `invalid_vendor_token`, so a caller cannot tell an unknown token from a
 * revoked one; an `sk-` key gets a message saying what to send instead.
 */
export function vendorAuth(services: ControlPlaneServices) {
  return async (request: Request, _response: Response, next: NextFunction): Promise<void> => {
    const token = bearerToken(request.headers.authorization);
    if (token === null) throw new GatewayError("invalid_vendor_token", "Missing vendor token: send Authorization: Bearer vt_...");
    if (token.startsWith("sk-")) {
      throw new GatewayError("invalid_vendor_token", "API keys (sk-...) cannot call the vendor API; send a vendor token (vt_...).");
    }
    const tokenHash = hashSecret(token);
    const row = token.startsWith("vt_")
      ? await services.db.prisma.vendorToken.findUnique({ where: { tokenHash }, include: { vendor: { select: { name: true } } } })
      : null;
    // The lookup is by hash already; the constant-time compare keeps the check itself timing-safe.
    if (!row || row.revokedAt !== null || !hashesEqual(row.tokenHash, tokenHash)) {
      throw new GatewayError("invalid_vendor_token", "Invalid or revoked vendor token.");
    }
    request.vendor = {
      vendorId: row.vendorId,
      vendorName: row.vendor.name,
      tokenId: row.id,
      scopes: new Set(VENDOR_SCOPES.filter((scope) => row.scopes.includes(scope))),
    };
    if (!row.lastUsedAt || Date.now() - row.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
      services.db.prisma.vendorToken
        .update({ where: { id: row.id }, data: { lastUsedAt: new Date() } })
        .catch((error: unknown) => services.logger.warn({ err: (error as Error).message, tokenId: row.id }, "could not record vendor token use"));
    }
    next();
  };
}

/** 403 `missing_scope` unless the token carries `scope`. Runs after `vendorAuth`. */
export function requireScope(scope: VendorScope) {
  return (request: Request, _response: Response, next: NextFunction): void => {
    if (!vendorOf(request).scopes.has(scope)) {
      throw new GatewayError("missing_scope", `This vendor token lacks the scope '${scope}'.`);
    }
    next();
  };
}

/** Who acts in a vendor request, for the audit log. */
export function actorOf(request: Request): Actor {
  const { vendorId, tokenId } = vendorOf(request);
  return { vendorId, tokenId, requestId: request.requestId };
}

/** The caller of an /api route mounted behind `vendorAuth`. */
export function vendorOf(request: Request): VendorPrincipal {
  if (!request.vendor) throw new GatewayError("internal_error", "Vendor route mounted without vendorAuth.");
  return request.vendor;
}

function bearerToken(header: string | undefined): string | null {
  const match = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}
