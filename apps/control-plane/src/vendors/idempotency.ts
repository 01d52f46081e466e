import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from "node:crypto";
import { GatewayError, hashesEqual } from "@gateway/contracts";
import { Prisma, type PrismaClient } from "@gateway/db";
import { idempotencyKeyHeaderSchema } from "./api-schemas.ts";

/**
 * `Idempotency-Key` for POST /api/keys (contract section 6), and the other creates (`runCreate`). The first request inserts the
 * (vendorId, key) row inside a transaction, mints, stores the encrypted response in the same row
 * and commits. A concurrent duplicate's INSERT waits on that primary key until the first commits,
 * then fails as a duplicate and replays the committed response; if the first rolls back, the
 * duplicate's INSERT succeeds and it mints instead. So one key is minted per Idempotency-Key, and
 * no half-finished row is ever visible.
 */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
const PENDING = "";
/** Claims that keep losing to expired rows or rollbacks; far more than any real race needs. */
const MAX_ATTEMPTS = 3;

type Tx = Parameters<Parameters<PrismaClient["$transaction"]>[0]>[0];

export interface IdempotencyScope {
  vendorId: string;
  key: string;
  /** `hashRequest` of the request, to refuse the same key with another body (409). */
  requestHash: string;
}

/** The `Idempotency-Key` header, or undefined when absent; 400 when malformed. */
export function readIdempotencyKey(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const parsed = idempotencyKeyHeaderSchema.safeParse(header);
  if (!parsed.success) {
    throw new GatewayError("invalid_header", `Idempotency-Key: ${parsed.error.issues[0]!.message}`, { param: "Idempotency-Key" });
  }
  return parsed.data;
}

/** sha256 of the route and the body in canonical JSON (object keys sorted), so key order does not matter. */
export function hashRequest(route: string, body: unknown): string {
  return createHash("sha256").update(route).update("\n").update(canonicalJson(body)).digest("hex");
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/**
 * Runs `produce` at most once per scope within 24 h and returns its value, or the stored value of
 * the run that already happened (`replayed: true`). `produce` gets the transaction that holds the
 * claim: whatever it writes there commits together with the stored response, or not at all.
 */
export async function runIdempotent<Value>(
  prisma: PrismaClient,
  cipher: ResponseCipher,
  scope: IdempotencyScope,
  produce: (tx: Tx) => Promise<Value>,
): Promise<{ value: Value; replayed: boolean }> {
  const where = { vendorId_key: { vendorId: scope.vendorId, key: scope.key } };
  const associated = `${scope.vendorId}\n${scope.key}`;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
    // Expired records are gone for good: sweep this vendor's, which also frees this key.
    await prisma.idempotencyRecord.deleteMany({ where: { vendorId: scope.vendorId, expiresAt: { lte: new Date() } } });
    const existing = await prisma.idempotencyRecord.findUnique({ where });
    if (existing) {
      if (!hashesEqual(existing.requestHash, scope.requestHash)) {
        throw new GatewayError("idempotency_conflict", "This Idempotency-Key was already used with a different request body.", { param: "Idempotency-Key" });
      }
      return { value: cipher.decrypt(existing.responseCiphertext, associated) as Value, replayed: true };
    }
    try {
      const value = await prisma.$transaction(
        async (tx) => {
          await tx.idempotencyRecord.create({
            data: { vendorId: scope.vendorId, key: scope.key, requestHash: scope.requestHash, responseCiphertext: PENDING, expiresAt: new Date(Date.now() + IDEMPOTENCY_TTL_MS) },
          });
          const produced = await produce(tx);
          await tx.idempotencyRecord.update({ where, data: { responseCiphertext: cipher.encrypt(produced, associated) } });
          return produced;
        },
        { maxWait: 5_000, timeout: 15_000 },
      );
      return { value, replayed: false };
    } catch (error) {
      // Another request holds or held this key: its row is committed now; read it on the next turn.
      if (!isUniqueViolation(error)) throw error;
    }
  }
  throw new GatewayError("idempotency_conflict", "This Idempotency-Key is in use by a request that has not settled; retry later.", { param: "Idempotency-Key" });
}

/**
 * A create route's one way to honor `Idempotency-Key` (POST /api/customers, /api/plans, the
 * credits): with a key, `runIdempotent` under (vendor, key) and the route and body's hash; without
 * one, `produce` in a transaction of its own. Either way `produce` writes in the transaction it gets.
 */
export async function runCreate<Value>(
  prisma: PrismaClient,
  cipher: ResponseCipher,
  request: { vendorId: string; idempotencyKey: string | undefined; route: string; body: unknown },
  produce: (tx: Tx) => Promise<Value>,
): Promise<{ value: Value; replayed: boolean }> {
  if (request.idempotencyKey === undefined) return { value: await prisma.$transaction(produce, { maxWait: 10_000, timeout: 15_000 }), replayed: false };
  return runIdempotent(prisma, cipher, { vendorId: request.vendorId, key: request.idempotencyKey, requestHash: hashRequest(request.route, request.body) }, produce);
}

function isUniqueViolation(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002";
}

/**
 * AES-256-GCM over the stored response: it holds a plaintext key. The key is derived from
 * IDEMPOTENCY_SECRET with HKDF; the row's (vendor, key) is authenticated data, so a ciphertext
 * copied to another row does not decrypt.
 */
export interface ResponseCipher {
  encrypt(value: unknown, associated: string): string;
  decrypt(text: string, associated: string): unknown;
}

const FORMAT = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;

export function responseCipher(secret: string): ResponseCipher {
  const key = Buffer.from(hkdfSync("sha256", secret, "gateway/idempotency", "idempotency response encryption v1", 32));
  return {
    encrypt(value, associated) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv("aes-256-gcm", key, iv).setAAD(Buffer.from(associated, "utf8"));
      const body = Buffer.concat([cipher.update(JSON.stringify(value), "utf8"), cipher.final()]);
      return `${FORMAT}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url")}`;
    },
    decrypt(text, associated) {
      const [format, payload] = text.split(".");
      if (format !== FORMAT || payload === undefined) throw new GatewayError("internal_error", "A stored idempotent response has an unknown format.");
      const raw = Buffer.from(payload, "base64url");
      const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, IV_BYTES)).setAAD(Buffer.from(associated, "utf8"));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      const plain = Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
      return JSON.parse(plain.toString("utf8"));
    },
  };
}
