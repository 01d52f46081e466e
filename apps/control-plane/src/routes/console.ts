import { stat, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import express, { Router, type NextFunction, type Request, type Response } from "express";
import { GatewayError } from "@gateway/contracts";

/** apps/console/dist, built by `pnpm --filter @gateway/console build` (the image copies it to the same place). */
const DEFAULT_DIST = fileURLToPath(new URL("../../../console/dist/", import.meta.url));

/**
 * The console runs only its own files: no inline script or style, nothing from another origin,
 * never inside a frame. It calls the vendor API on the same origin (connect-src 'self').
 */
export const CONSOLE_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

function securityHeaders(_request: Request, response: Response, next: NextFunction): void {
  response.setHeader("content-security-policy", CONSOLE_CONTENT_SECURITY_POLICY);
  response.setHeader("x-content-type-options", "nosniff");
  response.setHeader("referrer-policy", "no-referrer");
  response.setHeader("x-frame-options", "DENY");
  response.setHeader("cross-origin-opener-policy", "same-origin");
  next();
}

const notBuilt = () =>
  new GatewayError("dependency_unavailable", "The vendor console is not built on this server: run `pnpm --filter @gateway/console build` (scripts/start.sh does), then reload.");

/**
 * GET /console and /console/*: the vendor console (contract section 10), a single-page app built
 * by Vite into `distDir`. Hashed assets are cached for a year; index.html is never cached and
 * answers every other path (deep links such as /console/usage), except names that look like a
 * missing file, which are a 404 envelope. Without a build every path is a 503 envelope saying so.
 * The proxy relays /console here, so the console shares the gateway's one address.
 */
export function consoleRouter(options: { distDir?: string } = {}): Router {
  const dist = options.distDir ?? DEFAULT_DIST;
  const indexFile = join(dist, "index.html");
  const router = Router();
  router.use(securityHeaders);
  router.use(async (request, _response, next) => {
    if (request.method !== "GET" && request.method !== "HEAD") return next();
    const built = await stat(indexFile).then((file) => file.isFile(), () => false);
    next(built ? undefined : notBuilt());
  });
  router.use("/assets", express.static(join(dist, "assets"), { immutable: true, maxAge: "365d", index: false, redirect: false, dotfiles: "ignore" }));
  router.use(
    express.static(dist, {
      index: false,
      redirect: false,
      dotfiles: "ignore",
      maxAge: "1h",
      setHeaders: (response, path) => {
        if (path === indexFile) response.setHeader("cache-control", "no-store");
      },
    }),
  );
  router.use(async (request, response, next) => {
    if (request.method !== "GET" && request.method !== "HEAD") return next();
    const lastSegment = request.path.split("/").pop() ?? "";
    if (request.path.startsWith("/assets/") || lastSegment.includes(".")) {
      throw new GatewayError("not_found", `No console file at ${request.originalUrl.split("?")[0]}.`);
    }
    const html = await readFile(indexFile).catch(() => null);
    if (html === null) throw notBuilt();
    response.status(200).set({ "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).send(html);
  });
  return router;
}
