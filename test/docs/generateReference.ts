import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { referencePages } from "./reference/pages.ts"
import { ROOT } from "./reference/sourceFiles.ts"

// Writes docs/reference/ from the code: `npx node test/docs/generateReference.ts`. test/docs/reference.test.ts makes
// the same pages in memory and fails naming any committed page that differs.

const dir = join(ROOT, "docs", "reference")
mkdirSync(dir, { recursive: true })
for (const [file, text] of await referencePages()) {
  writeFileSync(join(dir, file), text)
  process.stdout.write(`docs/reference/${file}\n`)
}
