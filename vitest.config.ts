import { defineConfig } from "vitest/config"
import { NATIVE_MODULES } from "./test/support/nativeModules.ts"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The browser tests run on their own after this suite (vitest.browser.config.ts); the other docs tests run here.
    exclude: ["test/sdk/**", "test/docs/scalar.test.ts", "test/console/**/*.browser.test.ts", "**/node_modules/**"],
    globalSetup: ["test/support/globalSetup.ts"],
    // Generous: end-to-end tests wait for what platforms do in the background on a shared two-core machine.
    testTimeout: 180_000,
    hookTimeout: 120_000,
    pool: "forks",
    experimental: NATIVE_MODULES,
    fileParallelism: true,
    maxWorkers: 2,
    // Platform log lines only when something is wrong; a test that needs more sets it on its own processes.
    // Load shedding off (the admission limit pinned at its maximum), as the rate limits are raised (testConfig): the
    // suite's concurrency tests are not about overload, and a limit adapted to a slow burst in one test would shed the
    // next test's. test/http/admission.test.ts pins its own; the fault tests (vitest.chaos.config.ts) run the defaults.
    env: { GEP_LOG_LEVEL: "warn", GEP_ADMISSION_MIN: "20000" }
  }
})
