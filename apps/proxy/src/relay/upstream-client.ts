import { Pool, type Dispatcher } from "undici";
import type { UpstreamRecord } from "@gateway/redis-store";

export interface UpstreamCall {
  upstream: UpstreamRecord;
  path: string;
  headers: Record<string, string>;
  body: string | Buffer;
  signal: AbortSignal;
  /** Time allowed until the response headers arrive. */
  headersTimeoutMs: number;
  /** Longest pause between two body chunks. */
  bodyTimeoutMs: number;
}

interface UpstreamRoute {
  /** The base URL's path without its trailing slash, put before every call's path. */
  basePath: string;
  pool: Pool;
}

/**
 * The one upstream client: an undici Pool of keep-alive connections per upstream (a Pool is bound
 * to its origin, so no per-call origin parsing). A pool is made per upstream (name, base URL,
 * connect timeout), so a config change gets a fresh one.
 */
export class UpstreamClient {
  private readonly pools = new Map<string, Pool>();
  private routes = new WeakMap<UpstreamRecord, UpstreamRoute>();
  private readonly connections: number;

  constructor(options: { connections: number }) {
    this.connections = options.connections;
  }

  send(call: UpstreamCall): Promise<Dispatcher.ResponseData> {
    const route = this.route(call.upstream);
    return route.pool.request({
      path: route.basePath + call.path,
      method: "POST",
      headers: call.headers,
      body: call.body,
      signal: call.signal,
      headersTimeout: call.headersTimeoutMs,
      bodyTimeout: call.bodyTimeoutMs,
    });
  }

  async close(): Promise<void> {
    await Promise.all([...this.pools.values()].map((pool) => pool.close()));
    this.pools.clear();
    this.routes = new WeakMap();
  }

  /**
   * The parsed base URL and pool of an upstream record, worked out once per record: the routing
   * snapshot is replaced whole on a change, so a new record object means a new config.
   */
  private route(upstream: UpstreamRecord): UpstreamRoute {
    let route = this.routes.get(upstream);
    if (!route) {
      const base = new URL(upstream.baseUrl);
      route = { basePath: base.pathname.replace(/\/+$/, ""), pool: this.pool(upstream, base.origin) };
      this.routes.set(upstream, route);
    }
    return route;
  }

  private pool(upstream: UpstreamRecord, origin: string): Pool {
    const id = `${upstream.name}|${upstream.baseUrl}|${upstream.connectTimeoutMs}`;
    let pool = this.pools.get(id);
    if (!pool) {
      pool = new Pool(origin, {
        connections: this.connections,
        keepAliveTimeout: 30_000,
        connect: { timeout: upstream.connectTimeoutMs },
      });
      this.pools.set(id, pool);
    }
    return pool;
  }
}
