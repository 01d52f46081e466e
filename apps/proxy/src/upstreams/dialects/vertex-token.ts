import { createSign } from "node:crypto";
import { readFileSync } from "node:fs";

/** Google's scope for Vertex AI. */
const SCOPE = "https://www.googleapis.com/auth/cloud-platform";
/** A token is replaced this long before it expires (google-auth-library's eager refresh: 5 minutes). */
const REFRESH_BEFORE_MS = 5 * 60_000;
const TOKEN_TIMEOUT_MS = 10_000;

interface ServiceAccount {
  client_email: string;
  private_key: string;
  token_uri: string;
}

function base64url(value: string | Buffer): string {
  return Buffer.from(value).toString("base64url");
}

/**
 * OAuth2 access tokens for a service account (RFC 7523 JWT bearer grant, as Google documents it:
 * https://developers.google.com/identity/protocols/oauth2/service-account#httprest). Written here
 * rather than through google-auth-library because that library posts to Google's fixed token URL
 * and ignores the key file's `token_uri`, which private endpoints and tests need. One token per key
 * file, shared by every request, fetched once at a time, replaced 5 minutes before it expires or
 * when the upstream refuses it (`invalidate`). Neither the key nor a token is ever logged or put in
 * an error.
 */
export class ServiceAccountTokens {
  private readonly file: string;
  private account: ServiceAccount | null = null;
  private token: { value: string; expiresAt: number } | null = null;
  private pending: Promise<string> | null = null;

  constructor(file: string) {
    this.file = file;
  }

  /** A valid access token: the cached one, or a fresh one from the key file's `token_uri`. */
  get(now = Date.now()): Promise<string> {
    if (this.token !== null && this.token.expiresAt - REFRESH_BEFORE_MS > now) return Promise.resolve(this.token.value);
    this.pending ??= this.fetch().finally(() => {
      this.pending = null;
    });
    return this.pending;
  }

  /** The upstream refused the token (401): the next call gets a new one. */
  invalidate(): void {
    this.token = null;
  }

  private keyFile(): ServiceAccount {
    if (this.account !== null) return this.account;
    let parsed: Partial<ServiceAccount>;
    try {
      parsed = JSON.parse(readFileSync(this.file, "utf8")) as Partial<ServiceAccount>;
    } catch (error) {
      throw new Error(`the service-account key file cannot be read (${(error as NodeJS.ErrnoException).code ?? "not JSON"})`);
    }
    if (typeof parsed.client_email !== "string" || typeof parsed.private_key !== "string" || typeof parsed.token_uri !== "string") {
      throw new Error("the service-account key file lacks client_email, private_key or token_uri");
    }
    this.account = { client_email: parsed.client_email, private_key: parsed.private_key, token_uri: parsed.token_uri };
    return this.account;
  }

  private async fetch(): Promise<string> {
    const account = this.keyFile();
    const issuedAt = Math.floor(Date.now() / 1000);
    const header = base64url(JSON.stringify({ alg: "RS256", typ: "JWT" }));
    const claims = base64url(JSON.stringify({ iss: account.client_email, scope: SCOPE, aud: account.token_uri, iat: issuedAt, exp: issuedAt + 3600 }));
    const signature = createSign("RSA-SHA256").update(`${header}.${claims}`).sign(account.private_key);
    const assertion = `${header}.${claims}.${base64url(signature)}`;
    const response = await fetch(account.token_uri, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion }).toString(),
      signal: AbortSignal.timeout(TOKEN_TIMEOUT_MS),
    });
    const answer = (await response.json().catch(() => null)) as { access_token?: unknown; expires_in?: unknown } | null;
    if (!response.ok || typeof answer?.access_token !== "string") throw new Error(`the token endpoint answered ${response.status}`);
    const lifetime = typeof answer.expires_in === "number" && answer.expires_in > 0 ? answer.expires_in : 3600;
    this.token = { value: answer.access_token, expiresAt: Date.now() + lifetime * 1000 };
    return answer.access_token;
  }
}
