import { performanceFiles } from "./performance/pages.ts"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { readmeWithRetention } from "./reference/personalData.ts"
import { referencePages } from "./reference/pages.ts"
import { ROOT } from "./reference/sourceFiles.ts"

/** Every documentation file made from the code or the bench results: path from the repository root → text. */
export const generatedFiles = async (): Promise<ReadonlyMap<string, string>> => {
  const files = new Map<string, string>()
  for (const [file, text] of await referencePages()) files.set(`docs/reference/${file}`, text)
  for (const [path, text] of performanceFiles()) files.set(path, text)
  // The README's list of tables and streams holding personal data (between its markers; the rest of it as written).
  files.set("README.md", readmeWithRetention(readFileSync(join(ROOT, "README.md"), "utf8")))
  return files
}
