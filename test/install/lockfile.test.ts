import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"

interface LockEntry {
  readonly version?: string
  readonly optionalDependencies?: Record<string, string>
  readonly dependencies?: Record<string, string>
}
const lock = JSON.parse(readFileSync(new URL("../../package-lock.json", import.meta.url), "utf8")) as {
  readonly lockfileVersion: number
  readonly packages: Record<string, LockEntry>
}
const manifest = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
  readonly dependencies: Record<string, string>
  readonly devDependencies: Record<string, string>
}

/** Where Node would find `name` from the package at `from`: its own node_modules, then each enclosing one, then the root. */
const resolve = (from: string, name: string): string | undefined => {
  for (let dir = from; ; dir = dir.slice(0, Math.max(0, dir.lastIndexOf("/node_modules/")))) {
    const candidate = `${dir === "" ? "" : `${dir}/`}node_modules/${name}`
    if (candidate in lock.packages) return candidate
    if (dir === "") return undefined
  }
}

// npm records a package's optional platform binaries only for the platforms it resolved on; a lockfile written where
// some were skipped is rewritten by the next `npm install` elsewhere and refused by `npm ci` (issue 30). The install
// itself is checked by .ci/run (`git diff --exit-code package-lock.json` after `npm install`).
describe("package-lock.json", () => {
  it("names every optional dependency of every package, for every platform, so npm ci installs it unchanged anywhere", () => {
    const missing = Object.entries(lock.packages).flatMap(([path, entry]) =>
      Object.keys(entry.optionalDependencies ?? {}).filter((name) => resolve(path, name) === undefined).map((name) => `${path || "<root>"} -> ${name}`))
    expect(missing).toEqual([])
  })

  it("pins exactly what package.json pins", () => {
    const pinned = { ...manifest.dependencies, ...manifest.devDependencies }
    // An alias (`"typescript5": "npm:typescript@5.9.3"`) pins the version after its last `@`.
    const versionOf = (spec: string) => spec.startsWith("npm:") ? spec.slice(spec.lastIndexOf("@") + 1) : spec
    const differing = Object.entries(pinned).map(([name, spec]) => [name, versionOf(spec)] as const)
      .filter(([name, version]) => !version.startsWith("file:") && lock.packages[`node_modules/${name}`]?.version !== version)
      .map(([name, version]) => `${name}: package.json ${version}, lock ${lock.packages[`node_modules/${name}`]?.version}`)
    expect(differing).toEqual([])
    expect(lock.lockfileVersion).toBe(3)
  })
})
