import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The browser tests run on their own after this suite (vitest.browser.config.ts).
    exclude: ["test/sdk/**", "test/docs/**", "**/node_modules/**"],
    globalSetup: ["test/support/globalSetup.ts"],
    // Generous: end-to-end tests wait for what platforms do in the background on a shared two-core machine.
    testTimeout: 180_000,
    hookTimeout: 120_000,
    pool: "forks",
    fileParallelism: true,
    maxWorkers: 2,
    // Platform log lines only when something is wrong; a test that needs more sets it on its own processes.
    env: { GEP_LOG_LEVEL: "warn" }
  }
})
