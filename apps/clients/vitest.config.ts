import { defineConfig } from "vitest/config";

// One gateway for the whole package (test/support/global-stack.ts); the test files run in parallel
// (the CLIs spend their time in their own processes), each test with its own key and scratch HOME.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/global-stack.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
