import { defineConfig } from "vitest/config";

/**
 * End-to-end tests of the built console in Debian's Chromium, against the whole stack. The global
 * setup builds the console when its sources are newer than dist/.
 */
export default defineConfig({
  test: {
    include: ["test/**/*.e2e.test.ts"],
    globalSetup: ["test/support/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each file starts its own stack and browser and waits on them more than it computes: both
    // files at once, even on a 2-core machine (vitest's default would run them one after another).
    maxWorkers: 2,
    // The page shows a change once the API answered and React rendered: poll for it, never sleep.
    expect: { poll: { timeout: 5_000, interval: 50 } },
  },
});
