import { fileURLToPath } from "node:url"

/**
 * How every test run loads the project's code: Node's own `import` (it strips the TypeScript types itself, as
 * `npm start` runs the code) instead of Vite's module runner, with Node's compile cache shared by every process of
 * the run, the test workers and the platforms, CLIs and workers they spawn. A test file is a process of its own and
 * loads most of the platform (Effect's few hundred modules, the project's own): loading, not testing, was half of the
 * suite's time, and each process compiled the same files again. Measured on 59 files of test/actors and test/core:
 * 114-117 s with Vite's runner, 98 s so (user CPU 137 s against 109 s).
 */
export const NATIVE_MODULES = { viteModuleRunner: false } as const

process.env.NODE_COMPILE_CACHE ??= fileURLToPath(new URL("../../node_modules/.cache/node-compile/", import.meta.url))
