import { readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"

/** The repository's root (this file is test/docs/reference/sourceFiles.ts). */
export const ROOT = fileURLToPath(new URL("../../../", import.meta.url))

export interface SourceFile {
  /** Relative to the root, with forward slashes: how the pages link to it. */
  readonly path: string
  readonly text: string
}

/** Every TypeScript file of the product layers (the shipped code: what reads configuration at run time). */
export const productFiles = (folders: ReadonlyArray<string> = ["core", "src", "actors", "streams", "schemas"]): ReadonlyArray<SourceFile> => {
  const files: Array<SourceFile> = []
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name)
      if (entry.isDirectory()) walk(full)
      else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) {
        files.push({ path: relative(ROOT, full).split("\\").join("/"), text: readFileSync(full, "utf8") })
      }
    }
  }
  for (const folder of folders) walk(join(ROOT, folder))
  return files.sort((a, b) => a.path.localeCompare(b.path))
}

/** The 1-based line of a character offset. */
export const lineOf = (text: string, offset: number): number => text.slice(0, offset).split("\n").length

/** The text of a call's argument list starting just after its "(": up to the matching ")". */
export const argumentText = (text: string, from: number): string => {
  let depth = 1
  let quote: string | undefined
  for (let i = from; i < text.length; i++) {
    const ch = text[i]!
    if (quote !== undefined) {
      if (ch === "\\") i++
      else if (ch === quote) quote = undefined
    } else if (ch === "\"" || ch === "'" || ch === "`") quote = ch
    else if (ch === "(") depth++
    else if (ch === ")" && --depth === 0) return text.slice(from, i).trim()
  }
  throw new Error(`unbalanced call at offset ${from}`)
}
