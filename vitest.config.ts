import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/globalSetup.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    fileParallelism: true,
    maxWorkers: 2,
    // Platform log lines only when something is wrong; a test that needs more sets it on its own processes.
    env: { GEP_LOG_LEVEL: "warn" }
  }
})
