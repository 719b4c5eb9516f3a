import { defineConfig } from "vitest/config"
import { NATIVE_MODULES } from "./test/support/nativeModules.ts"

/**
 * The browser tests, the SDK's and the console's walk (Debian's Chromium through playwright-core): run after the main
 * suite, so a browser's CPU does not slow the main suite's platforms on a two-core machine (nor they the browser's
 * timing), two files at a time among themselves (one at a time took 110 s of `npm test`'s 25 minutes; the tightest
 * timing here, the SDK's retry gaps, allows 900 ms).
 */
export default defineConfig({
  test: {
    include: ["test/sdk/**/*.test.ts", "test/docs/scalar.test.ts", "test/console/**/*.browser.test.ts"],
    globalSetup: ["test/support/globalSetup.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
    experimental: NATIVE_MODULES,
    fileParallelism: true,
    maxWorkers: 2,
    env: { GEP_LOG_LEVEL: "warn" }
  }
})
