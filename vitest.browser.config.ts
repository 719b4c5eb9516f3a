import { defineConfig } from "vitest/config"
import { NATIVE_MODULES } from "./test/support/nativeModules.ts"

/**
 * The browser tests, the SDK's and the console's walk (Debian's Chromium through playwright-core): run after the main
 * suite, one file at a time, so a browser's CPU does not slow the other files' platforms on a two-core machine (nor they the browser's timing).
 */
export default defineConfig({
  test: {
    include: ["test/sdk/**/*.test.ts", "test/docs/scalar.test.ts", "test/console/**/*.browser.test.ts"],
    globalSetup: ["test/support/globalSetup.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
    experimental: NATIVE_MODULES,
    fileParallelism: false,
    maxWorkers: 1,
    env: { GEP_LOG_LEVEL: "warn" }
  }
})
