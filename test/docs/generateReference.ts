import { mkdirSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { generatedFiles } from "./generated.ts"
import { ROOT } from "./reference/sourceFiles.ts"

// Writes the generated documentation: docs/reference/ from the code, docs/operations/charts/*.svg and
// docs/operations/performance-figures.md from test/bench/results. Run `npx node test/docs/generateReference.ts`;
// test/docs/reference.test.ts makes the same files in memory and fails naming any committed one that differs.

for (const [path, text] of await generatedFiles()) {
  mkdirSync(dirname(join(ROOT, path)), { recursive: true })
  writeFileSync(join(ROOT, path), text)
  process.stdout.write(`${path}\n`)
}
