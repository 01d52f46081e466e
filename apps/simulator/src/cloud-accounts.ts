/**
 * The simulator's cloud identities: an AWS access key pair (Bedrock's SigV4 is verified with it)
 * and a Google service account whose key file points `token_uri` at the simulator's own token
 * endpoint; the access tokens that endpoint issues are the only bearer tokens Vertex routes take.
 */
import { createPublicKey, createVerify, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';

export const SIM_AWS_ACCESS_KEY_ID = 'AKIASIMULATOR0000001';
export const SIM_AWS_SECRET_ACCESS_KEY = 'simulator+aws+secret+access+key+0000001';
export const SIM_GOOGLE_PROJECT = 'sim-project';
const CLIENT_EMAIL = `gateway@${SIM_GOOGLE_PROJECT}.iam.gserviceaccount.com`;

export type BearerCheck = 'ok' | 'missing' | 'invalid' | 'expired';

export class CloudAccounts {
  readonly aws = { accessKeyId: SIM_AWS_ACCESS_KEY_ID, secretAccessKey: SIM_AWS_SECRET_ACCESS_KEY };
  /** Lifetime of the tokens issued from now on, in seconds (Google's: 3599). */
  tokenLifetimeSeconds = 3599;
  /**
   * Exceptions the next Bedrock streams answer with after their 200, one each, in order
   * (`throttlingException`, `modelStreamErrorException`, ...): a throttle mid-stream, as Bedrock sends it.
   */
  readonly bedrockStreamExceptions: string[] = [];
  /** Tokens issued so far (a test sees a refresh as one more). */
  tokensIssued = 0;
  private keys: { privateKey: string; publicKey: KeyObject } | null = null;
  private readonly tokens = new Map<string, number>();

  private keyPair(): { privateKey: string; publicKey: KeyObject } {
    if (this.keys === null) {
      const pair = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
      this.keys = { privateKey: pair.privateKey, publicKey: createPublicKey(pair.publicKey) };
    }
    return this.keys;
  }

  /** A service-account key file (Google's JSON format) whose tokens come from `${baseUrl}/oauth2/token`. */
  serviceAccount(baseUrl: string): Record<string, string> {
    return {
      type: 'service_account',
      project_id: SIM_GOOGLE_PROJECT,
      private_key_id: 'sim-key-1',
      private_key: this.keyPair().privateKey,
      client_email: CLIENT_EMAIL,
      client_id: '100000000000000000001',
      auth_uri: `${baseUrl}/oauth2/auth`,
      token_uri: `${baseUrl}/oauth2/token`,
      universe_domain: 'googleapis.com',
    };
  }

  /**
   * The JWT-bearer grant: the assertion must be RS256-signed by the service account's key, issued by
   * its email for the token endpoint, unexpired. Returns a new access token, or null when refused.
   */
  issue(assertion: string, tokenUri: string, now = Date.now()): { token: string; expiresIn: number } | null {
    const parts = assertion.split('.');
    if (parts.length !== 3) return null;
    const [header, claims, signature] = parts as [string, string, string];
    const verified = createVerify('RSA-SHA256').update(`${header}.${claims}`).verify(this.keyPair().publicKey, Buffer.from(signature, 'base64url'));
    if (!verified) return null;
    let payload: Record<string, unknown>;
    try {
      payload = JSON.parse(Buffer.from(claims, 'base64url').toString('utf8')) as Record<string, unknown>;
    } catch {
      return null;
    }
    const seconds = Math.floor(now / 1000);
    if (payload['iss'] !== CLIENT_EMAIL || payload['aud'] !== tokenUri || typeof payload['exp'] !== 'number' || payload['exp'] < seconds) return null;
    const token = `ya29.sim-${randomBytes(24).toString('base64url')}`;
    this.tokens.set(token, now + this.tokenLifetimeSeconds * 1000);
    this.tokensIssued += 1;
    return { token, expiresIn: this.tokenLifetimeSeconds };
  }

  /** A bearer token the token endpoint issued and that has not expired. */
  checkBearer(authorization: string | undefined, now = Date.now()): BearerCheck {
    const match = /^Bearer\s+(.+)$/i.exec(authorization ?? '');
    if (!match) return 'missing';
    const expiresAt = this.tokens.get((match[1] as string).trim());
    if (expiresAt === undefined) return 'invalid';
    return expiresAt > now ? 'ok' : 'expired';
  }

  /** Every token issued so far expires now (the next call with one is a 401). */
  expireTokens(): void {
    for (const token of this.tokens.keys()) this.tokens.set(token, 0);
  }
}
