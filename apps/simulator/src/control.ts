/** Control endpoints: `/_sim/stats`, `/_sim/faults`, `/_sim/images/<id>.png`. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SimContext } from './context.ts';
import { faultsBodySchema } from './faults.ts';
import { readBody, sendJson } from './http-util.ts';
import { TINY_PNG } from './openai-images.ts';

function notFound(res: ServerResponse, method: string | undefined, path: string): void {
  sendJson(res, 404, { error: { message: `Unknown control route: ${method} ${path}`, type: 'invalid_request_error', param: null, code: 'unknown_url' } });
}

function badRequest(res: ServerResponse, message: string): void {
  sendJson(res, 400, { error: { message, type: 'invalid_request_error', param: null, code: null } });
}

export async function handleControl(ctx: SimContext, req: IncomingMessage, res: ServerResponse, path: string, query: string): Promise<void> {
  const method = req.method;
  if (path === '/_sim/stats') {
    req.resume();
    if (method === 'GET') {
      const limit = Number(new URLSearchParams(query).get('limit') ?? NaN);
      const requests = Number.isInteger(limit) && limit >= 0 ? ctx.stats.requests.slice(-limit || ctx.stats.requests.length) : ctx.stats.requests;
      return sendJson(res, 200, { totals: ctx.stats.totals, requests: limit === 0 ? [] : requests });
    }
    if (method === 'DELETE') {
      ctx.stats.clear();
      return sendJson(res, 200, { cleared: true });
    }
  }
  if (path === '/_sim/faults') {
    if (method === 'GET') {
      req.resume();
      return sendJson(res, 200, { faults: ctx.faults.entries });
    }
    if (method === 'DELETE') {
      req.resume();
      ctx.faults.clear();
      return sendJson(res, 200, { cleared: true });
    }
    if (method === 'POST') {
      let value: unknown;
      try {
        value = JSON.parse((await readBody(req, 1024 * 1024)).toString('utf8'));
      } catch {
        return badRequest(res, 'body must be JSON: {"faults":[{"match":{},"times":1,"behaviour":{}}]}');
      }
      const parsed = faultsBodySchema.safeParse(value);
      if (!parsed.success) return badRequest(res, parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
      ctx.faults.push(...parsed.data.faults);
      return sendJson(res, 200, { queued: parsed.data.faults.length, faults: ctx.faults.entries });
    }
  }
  if (method === 'GET' && /^\/_sim\/images\/[\w-]+\.png$/.test(path)) {
    req.resume();
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': TINY_PNG.length });
    res.end(TINY_PNG);
    return;
  }
  req.resume();
  notFound(res, method, path);
}
