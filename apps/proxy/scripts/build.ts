// The production build of the proxy: one bundled ES module, dist/main.mjs, run with plain `node`.
// esbuild, because in production the sources should not pay for type stripping at start-up and in
// memory (Node's stripper is a WASM module of its own), nor for resolving hundreds of module files.
import { build } from "esbuild";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
await build({
  absWorkingDir: root,
  // The token counter's worker thread is an entry of its own, beside main.mjs (tokens/token-counter-pool.ts).
  entryPoints: { main: "src/main.ts", "count-tokens-worker": "src/tokens/count-tokens-worker.ts" },
  outdir: "dist",
  outExtension: { ".js": ".mjs" },
  // Modules imported only when needed (the OpenTelemetry SDK, when an endpoint is set) go in
  // chunks of their own, loaded then; the main module holds only what every proxy runs.
  splitting: true,
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node24",
  sourcemap: "linked",
  legalComments: "none",
  // Whitespace and comments out: V8 keeps the module's source text for as long as the process
  // runs, and the doc comments bundled dependencies carry (luxon's examples in Arabic, Burmese)
  // made all of it a two-byte string: 10.7 MB of heap for a 5.3 MB file. Names are kept (no
  // identifier renaming), so profiles and stack traces still name every function; the linked
  // source map gives lines back (node --enable-source-maps).
  minifyWhitespace: true,
  logLevel: "warning",
  // BullMQ's PostgreSQL backend requires `pg` lazily and the proxy never uses it.
  external: ["pg"],
  // Bundled CommonJS dependencies call require() for Node's built-ins.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
});
