import { performanceFiles } from "./performance/pages.ts"
import { referencePages } from "./reference/pages.ts"

/** Every documentation file made from the code or the bench results: path from the repository root → text. */
export const generatedFiles = async (): Promise<ReadonlyMap<string, string>> => {
  const files = new Map<string, string>()
  for (const [file, text] of await referencePages()) files.set(`docs/reference/${file}`, text)
  for (const [path, text] of performanceFiles()) files.set(path, text)
  return files
}
