import { randomUUID } from "node:crypto";
import { Redis, type RedisOptions } from "ioredis";
import { resolveTestServices } from "./services.ts";

/**
 * A test file's Redis: the test server under a key prefix of its own, one connection to read and
 * write it, and more connections (each standing for a process) that end with it. `start` in
 * beforeAll, `stop` in afterAll: every key under the prefix is deleted and every connection closed.
 */
export class TestRedis {
  readonly prefix = `test-${randomUUID().slice(0, 8)}`;
  private url: string | null = null;
  private readonly clients: Redis[] = [];

  /** The main connection, once started. */
  async start(): Promise<Redis> {
    this.url = (await resolveTestServices()).redisUrl;
    return this.connect();
  }

  /** Another connection to the same server, closed by `stop`. */
  connect(options: RedisOptions = {}): Redis {
    if (this.url === null) throw new Error("TestRedis.start() first");
    const client = new Redis(this.url, options);
    this.clients.push(client);
    return client;
  }

  async stop(): Promise<void> {
    const main = this.clients[0];
    if (main !== undefined) {
      const keys = await main.keys(`${this.prefix}:*`);
      if (keys.length) await main.del(...keys);
    }
    for (const client of this.clients) client.disconnect();
  }
}
