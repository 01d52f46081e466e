import type { Request, Response } from "express";
import type { ControlPlaneServices } from "../services.ts";

/** GET /healthz: the process is alive. */
export function healthRoute(_request: Request, response: Response): void {
  response.json({ status: "ok" });
}

/** GET /readyz: Postgres and Redis both answer. */
export function readyRoute(services: ControlPlaneServices, state: { shuttingDown: boolean }) {
  return async (_request: Request, response: Response): Promise<void> => {
    const [database, redis] = await Promise.all([
      services.db.prisma.$queryRaw`SELECT 1`.then(() => true, () => false),
      services.redis.ping().then(() => true, () => false),
    ]);
    const ready = database && redis && !state.shuttingDown;
    response.status(ready ? 200 : 503).json({ status: ready ? "ok" : "unavailable", checks: { database, redis, accepting: !state.shuttingDown } });
  };
}
