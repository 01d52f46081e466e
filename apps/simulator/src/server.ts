/** The HTTP server: health, control and provider routes on plain node:http with keep-alive. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SimContext } from './context.ts';
import { handleControl } from './control.ts';
import { errorBody } from './errors.ts';
import { sendJson } from './http-util.ts';
import { handleProvider } from './provider.ts';
import { handleAzure, isAzureRequest } from './azure-route.ts';
import { handleBedrock, isBedrockRequest } from './bedrock-route.ts';
import { handleVertex, isVertexRequest } from './vertex-route.ts';

const OK = { status: 'ok' };

function route(ctx: SimContext, req: IncomingMessage, res: ServerResponse): Promise<void> | void {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  // The provider kinds' own URLs first (Vertex's sit under /v1/projects/).
  if (isVertexRequest(path)) return handleVertex(ctx, ctx.cloud, req, res, path, q < 0 ? '' : url.slice(q + 1));
  if (isBedrockRequest(path)) return handleBedrock(ctx, ctx.cloud, req, res, path);
  if (isAzureRequest(path)) return handleAzure(ctx, req, res, path, new URLSearchParams(q < 0 ? '' : url.slice(q + 1)));
  if (path.startsWith('/v1/') || path.startsWith('/v1beta/')) return handleProvider(ctx, req, res, path, q < 0 ? '' : url.slice(q + 1));
  if (path.startsWith('/_sim/')) return handleControl(ctx, req, res, path, q < 0 ? '' : url.slice(q + 1));
  req.resume();
  if (req.method === 'GET' && (path === '/healthz' || path === '/readyz')) return sendJson(res, 200, OK);
  const provider = req.headers['anthropic-version'] !== undefined ? 'anthropic' : 'openai';
  sendJson(res, 404, errorBody(provider, { status: 404, message: `Unknown request URL: ${req.method} ${path}.`, code: 'unknown_url' }));
}

export function createSimulatorServer(ctx: SimContext): Server {
  const server = createServer({ keepAlive: true, keepAliveTimeout: 65_000, requestTimeout: 0 }, (req, res) => {
    const pending = route(ctx, req, res);
    if (pending) {
      pending.catch((error: unknown) => {
        if (!res.headersSent) sendJson(res, 500, errorBody('openai', { status: 500, message: String(error) }));
        else res.destroy();
      });
    }
  });
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  return server;
}

export function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
