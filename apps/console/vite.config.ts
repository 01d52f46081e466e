import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

/**
 * The vendor console is served by the control plane at /console (relayed by the proxy on the one
 * address), so every asset URL starts there. Hashed file names let assets be cached for a year
 * while index.html is never cached.
 */
export default defineConfig({
  base: "/console/",
  plugins: [react()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    // The CSP allows no data: URLs or inline code: every asset is a file of its own.
    assetsInlineLimit: 0,
    sourcemap: false,
    target: "es2022",
  },
  server: {
    // `pnpm --filter @gateway/console dev` against a running stack (scripts/start.sh).
    proxy: { "/api": process.env.GATEWAY_URL ?? "http://127.0.0.1:8080" },
  },
});
