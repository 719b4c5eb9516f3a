import { defineConfig } from "vitest/config"

/**
 * Fault tests: real worker processes killed and paused, PostgreSQL stopped, a NATS node killed.
 * CHAOS_SIZE=full (npm run test:chaos) uses the sizes; small (CI, inside npm test) fits a few minutes.
 */
export default defineConfig({
  test: {
    include: ["test/chaos/**/*.chaos.ts"],
    globalSetup: ["test/support/globalSetup.ts"],
    testTimeout: 600_000,
    hookTimeout: 180_000,
    pool: "forks",
    // One at a time: each test owns the machine's processes and timing.
    fileParallelism: false,
    maxWorkers: 1,
    env: { GEP_LOG_LEVEL: "warn" }
  }
})
