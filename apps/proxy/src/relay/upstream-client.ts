import { Agent, type Dispatcher } from "undici";
import type { UpstreamRecord } from "@gateway/redis-store";

export interface UpstreamCall {
  upstream: UpstreamRecord;
  path: string;
  headers: Record<string, string>;
  body: string;
  signal: AbortSignal;
  /** Time allowed until the response headers arrive. */
  headersTimeoutMs: number;
  /** Longest pause between two body chunks. */
  bodyTimeoutMs: number;
}

interface UpstreamRoute {
  origin: string;
  /** The base URL's path without its trailing slash, put before every call's path. */
  basePath: string;
  agent: Agent;
}

/**
 * The one upstream client: undici with a pool of keep-alive connections per upstream. A pool is
 * made per upstream (name, base URL, connect timeout), so a config change gets a fresh one.
 */
export class UpstreamClient {
  private readonly agents = new Map<string, Agent>();
  private routes = new WeakMap<UpstreamRecord, UpstreamRoute>();
  private readonly connections: number;

  constructor(options: { connections: number }) {
    this.connections = options.connections;
  }

  send(call: UpstreamCall): Promise<Dispatcher.ResponseData> {
    const route = this.route(call.upstream);
    return route.agent.request({
      origin: route.origin,
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
    await Promise.all([...this.agents.values()].map((agent) => agent.close()));
    this.agents.clear();
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
      route = { origin: base.origin, basePath: base.pathname.replace(/\/+$/, ""), agent: this.agent(upstream) };
      this.routes.set(upstream, route);
    }
    return route;
  }

  private agent(upstream: UpstreamRecord): Agent {
    const id = `${upstream.name}|${upstream.baseUrl}|${upstream.connectTimeoutMs}`;
    let agent = this.agents.get(id);
    if (!agent) {
      agent = new Agent({
        connections: this.connections,
        keepAliveTimeout: 30_000,
        connect: { timeout: upstream.connectTimeoutMs },
      });
      this.agents.set(id, agent);
    }
    return agent;
  }
}
