import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, relative } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { docsLink, REQUEST_ERRORS, type RequestErrorCode } from "../../src/website/answers.ts"
import { startPlatform, type RunningPlatform } from "../support/platform.ts"
import { anchorsOf, linksOf } from "./links/markdownLinks.ts"
import { ROOT } from "./reference/sourceFiles.ts"

const markdownUnder = (dir: string): ReadonlyArray<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? markdownUnder(join(dir, e.name)) : e.name.endsWith(".md") ? [join(dir, e.name)] : [])

const PAGES = [join(ROOT, "README.md"), ...(existsSync(join(ROOT, "docs")) ? markdownUnder(join(ROOT, "docs")) : [])]

/** A link leaving the repository (a scheme) or naming a path the running platform serves (/docs, /openapi.json). */
const notRelative = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("/") || target.startsWith("//")

const anchorCache = new Map<string, ReadonlySet<string>>()
const anchorsIn = (file: string) => {
  if (!anchorCache.has(file)) anchorCache.set(file, anchorsOf(readFileSync(file, "utf8")))
  return anchorCache.get(file)!
}

/** What is wrong with a relative link of `page`, or undefined when it resolves (file, and heading when it names one). */
const brokenLink = (page: string, target: string): string | undefined => {
  const [rawPath, anchor] = target.split("#", 2) as [string, string | undefined]
  const file = rawPath === "" ? page : join(dirname(page), decodeURIComponent(rawPath))
  if (!existsSync(file)) return `no such file ${relative(ROOT, file)}`
  if (anchor === undefined || anchor === "" || !file.endsWith(".md") || statSync(file).isDirectory()) return undefined
  return anchorsIn(file).has(decodeURIComponent(anchor).toLowerCase()) ? undefined : `no heading #${anchor} in ${relative(ROOT, file)}`
}

describe("links in README.md and docs/", () => {
  it("every relative link resolves to a file, and to a heading when it names one", () => {
    const broken: Array<string> = []
    let checked = 0
    for (const page of PAGES) {
      for (const link of linksOf(readFileSync(page, "utf8"))) {
        if (notRelative(link.target)) continue
        checked++
        const problem = brokenLink(page, link.target)
        if (problem) broken.push(`${relative(ROOT, page)}:${link.line}: (${link.target}) ${problem}`)
      }
    }
    expect(broken, broken.join("\n")).toEqual([])
    expect(checked).toBeGreaterThan(0)
  })
})

describe("docs/operations/fault-tests.md", () => {
  it("links every fault test in test/chaos (a new one needs its line: what it does, what must hold)", () => {
    const page = readFileSync(join(ROOT, "docs", "operations", "fault-tests.md"), "utf8")
    const missing = readdirSync(join(ROOT, "test", "chaos")).filter((f) => f.endsWith(".chaos.ts") && !page.includes(`(../../test/chaos/${f})`))
    expect(missing).toEqual([])
  })
})

describe("the docs links error bodies carry", () => {
  let platform: RunningPlatform
  beforeAll(async () => {
    platform = await startPlatform("docs_links")
  })
  afterAll(() => platform?.stop())

  it("a real error body's docs link is served, with a section for every code an error body can name", async () => {
    // A website-events refusal as a partner meets it: no key at all.
    const refused = await fetch(`${platform.baseUrl}/api/v1/website-events`, {
      method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ event: "page.viewed" })
    })
    const body = await refused.json() as { error: { code: RequestErrorCode; docs: string } }
    expect(body.error.docs).toBe(docsLink(body.error.code))
    const links = new Set([body.error.docs, ...(Object.keys(REQUEST_ERRORS) as Array<RequestErrorCode>).map(docsLink)])
    const pages = new Map<string, string>()
    const broken: Array<string> = []
    for (const link of links) {
      const [path, anchor] = link.split("#", 2) as [string, string]
      if (!pages.has(path)) {
        const res = await fetch(platform.baseUrl + path)
        pages.set(path, res.ok ? await res.text() : "")
        if (!res.ok) broken.push(`${path} answers ${res.status}`)
      }
      if (anchor && !pages.get(path)!.includes(`id="${anchor}"`)) broken.push(`${link}: no element with id "${anchor}"`)
    }
    expect(broken).toEqual([])
  })
})
