import { pathToFileURL } from "node:url"
import { join } from "node:path"
import { argumentText, lineOf, productFiles, ROOT, type SourceFile } from "./sourceFiles.ts"

/**
 * Every environment variable the product reads, found in the source: `Config.<Kind>("NAME")` (with its
 * `Config.withDefault(...)`, evaluated) and `process.env.NAME` (with its `?? literal`). Many reads sit inside layers'
 * `Effect.gen` bodies, where no exported object holds them, so the source is the one place that has them all; the scan
 * is strict instead: a Config constructor or env read in a form it does not understand is an error naming the line.
 */

export interface Read {
  readonly name: string
  /** The Config constructor (Int, String, ...) or "env" for a plain process.env read. */
  readonly kind: string
  /** The default's value as the code computes it; undefined: none (unset means off, or an `Option`). */
  readonly defaultValue: unknown
  readonly file: string
  readonly line: number
}

const KINDS = "String|Int|Number|Port|Boolean|Redacted|Url|Duration|NonEmptyString|LogLevel|Literal|Literals|schema"
const STRICT = new RegExp(`\\b(?:Effect)?Config\\.(${KINDS})\\("([A-Z][A-Z0-9_]*)"\\)`, "g")
const LOOSE = new RegExp(`\\b(?:Effect)?Config\\.(${KINDS})\\(`, "g")
const ENV = /process\.env(\.[A-Za-z_][A-Za-z0-9_]*|\[)/g

const NUMERIC = /^[\d_\s*+\-/.()]+$/
const PATH = /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/

/** A default written as an expression of constants, or as an imported constant's property (DEFAULT_ADMISSION.min). */
const evaluate = async (expression: string, file: SourceFile): Promise<unknown> => {
  if (/^"[^"\\]*"$/.test(expression)) return JSON.parse(expression)
  if (expression === "true" || expression === "false") return expression === "true"
  if (NUMERIC.test(expression)) return Function(`"use strict"; return (${expression.replace(/_/g, "")})`)()
  if (PATH.test(expression)) {
    const [head, ...rest] = expression.split(".")
    const imported = new RegExp(`import\\s*\\{[^}]*\\b${head}\\b[^}]*\\}\\s*from\\s*"([^"]+)"`).exec(file.text)
    const module = imported
      ? await import(new URL(imported[1]!, pathToFileURL(join(ROOT, file.path))).href)
      : await import(pathToFileURL(join(ROOT, file.path)).href)
    let value: unknown = module[head!]
    for (const key of rest) value = (value as Record<string, unknown>)[key]
    if (value === undefined) throw new Error(`${file.path}: cannot resolve the default ${expression}`)
    return value
  }
  throw new Error(`${file.path}: a default the reference cannot evaluate: ${expression}`)
}

const configReads = async (file: SourceFile): Promise<ReadonlyArray<Read>> => {
  const reads: Array<Read> = []
  const understood = new Set<number>()
  for (const m of file.text.matchAll(STRICT)) {
    understood.add(m.index)
    const after = file.text.slice(m.index + m[0].length)
    const pipe = /^\s*\.pipe\(/.exec(after)
    const args = pipe ? argumentText(after, pipe[0].length) : ""
    const withDefault = /\bwithDefault\(/.exec(args)
    reads.push({
      name: m[2]!,
      kind: m[1]!,
      defaultValue: withDefault ? await evaluate(argumentText(args, withDefault.index + withDefault[0].length), file) : undefined,
      file: file.path,
      line: lineOf(file.text, m.index)
    })
  }
  for (const m of file.text.matchAll(LOOSE)) {
    if (!understood.has(m.index)) {
      throw new Error(`${file.path}:${lineOf(file.text, m.index)}: a Config read whose variable name is not a literal; the reference cannot list it`)
    }
  }
  return reads
}

const envReads = (file: SourceFile): ReadonlyArray<Read> =>
  [...file.text.matchAll(ENV)].map((m) => {
    const line = lineOf(file.text, m.index)
    if (m[1] === "[") throw new Error(`${file.path}:${line}: process.env read by a computed name; the reference cannot list it`)
    const name = m[1]!.slice(1)
    const fallback = /^\s*(?:\?\?|\|\|)\s*([\d_]+|"[^"]*")/.exec(file.text.slice(m.index + m[0].length))
    return {
      name,
      kind: "env",
      defaultValue: fallback ? (fallback[1]!.startsWith("\"") ? JSON.parse(fallback[1]!) : Number(fallback[1]!.replace(/_/g, ""))) : undefined,
      file: file.path,
      line
    }
  })

/** Variables a process reads for its own sake that are not settings (the shell's, the platform's). */
const NOT_SETTINGS = new Set(["NODE_ENV", "HOME", "PATH"])

export const scanConfiguration = async (files = productFiles(["core", "src", "actors", "streams"])): Promise<ReadonlyArray<Read>> => {
  const reads: Array<Read> = []
  for (const file of files) {
    if (file.path.startsWith("src/sdk/browser/")) continue // the browser SDK runs in a page: no environment
    reads.push(...await configReads(file), ...envReads(file))
  }
  return reads.filter((r) => !NOT_SETTINGS.has(r.name))
}
