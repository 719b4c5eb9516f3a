import { scanConfiguration, type Read } from "./configurationScan.ts"
import { SECTIONS } from "./configurationMeanings.ts"
import { code, header, table } from "./markdown.ts"

/** A duration in milliseconds as a person reads it: 900000 → 15 min. */
const humanMs = (ms: number): string =>
  ms >= 3_600_000 && ms % 3_600_000 === 0 ? `${ms / 3_600_000} h`
  : ms >= 60_000 && ms % 60_000 === 0 ? `${ms / 60_000} min`
  : ms >= 1_000 && ms % 1_000 === 0 ? `${ms / 1_000} s`
  : `${ms} ms`

const shownDefault = (name: string, reads: ReadonlyArray<Read>, unset: string | undefined): string => {
  const values = [...new Set(reads.map((r) => JSON.stringify(r.defaultValue)))]
  if (values.length > 1) throw new Error(`${name} has different defaults where it is read: ${reads.map((r) => `${r.file}:${r.line} ${JSON.stringify(r.defaultValue)}`).join(", ")}`)
  const value = reads[0]!.defaultValue
  if (value === undefined || value === "") {
    if (unset === undefined) throw new Error(`${name} has no default in the code: configurationMeanings.ts must say what unset means`)
    return unset
  }
  if (unset !== undefined) throw new Error(`${name} has a default in the code (${JSON.stringify(value)}): remove its \`unset\` from configurationMeanings.ts`)
  if (typeof value === "number" && name.endsWith("_MS") && value >= 1_000) return `${code(String(value))} (${humanMs(value)})`
  return code(String(value))
}

const readIn = (reads: ReadonlyArray<Read>): string =>
  [...new Set(reads.map((r) => r.file))].map((f) => `[${f.split("/").pop()}](../../${f})`).join(", ")

/** docs/reference/configuration.md: every variable the code reads, grouped as configurationMeanings.ts orders them. */
export const configurationPage = async (): Promise<string> => {
  const reads = await scanConfiguration()
  const byName = new Map<string, Array<Read>>()
  for (const r of reads) byName.set(r.name, [...(byName.get(r.name) ?? []), r])
  const described = new Set(SECTIONS.flatMap((s) => Object.keys(s.variables)))
  const undescribed = [...byName.keys()].filter((n) => !described.has(n))
  if (undescribed.length > 0) {
    throw new Error(`configuration: read by the code but missing from test/docs/reference/configurationMeanings.ts: ${undescribed.join(", ")}`)
  }
  const stale = [...described].filter((n) => !byName.has(n))
  if (stale.length > 0) throw new Error(`configuration: in configurationMeanings.ts but read nowhere in the code: ${stale.join(", ")}`)

  const sections = SECTIONS.map((s) =>
    `## ${s.title}\n\n${s.intro}\n\n` +
    table(["variable", "default", "read in", "meaning"], Object.entries(s.variables).map(([name, m]) => {
      const r = byName.get(name)!
      return [code(name), shownDefault(name, r, m.unset), readIn(r), m.meaning]
    }))
  )
  return header("Configuration", "the Config and process.env reads in core/, src/, actors/ and streams/") +
    "Every environment variable the platform reads, with its default and meaning. Each process reads them once, at " +
    "start; the same values must be given to every ingress and worker of a deployment (above all " +
    "`GEP_PARTITIONS`, `GEP_NAMESPACE` and `GEP_WEBHOOK_ENCRYPTION_KEY`). Numbers are integers unless the default " +
    "shows a fraction; durations are in milliseconds.\n\n" +
    sections.join("\n\n") + "\n"
}
