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

/**
 * The one upstream client: undici with a pool of keep-alive connections per upstream. A pool is
 * made per upstream (name, base URL, connect timeout), so a config change gets a fresh one.
 */
export class UpstreamClient {
  private readonly agents = new Map<string, Agent>();
  private readonly connections: number;

  constructor(options: { connections: number }) {
    this.connections = options.connections;
  }

  send(call: UpstreamCall): Promise<Dispatcher.ResponseData> {
    const base = new URL(call.upstream.baseUrl);
    const path = base.pathname.replace(/\/+$/, "") + call.path;
    return this.agent(call.upstream).request({
      origin: base.origin,
      path,
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
