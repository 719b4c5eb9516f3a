import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type RunningPlatform, startPlatform } from "../support/platform.ts"

// The console's serving (src/console/routes.ts) on a whole platform: the page for every path under /console with its
// security headers, the hashed assets cached for a year. The screens themselves: walk.browser.test.ts in Chromium.

let platform: RunningPlatform
beforeAll(async () => { platform = await startPlatform("console-serving") })
afterAll(async () => { await platform?.stop() })

const get = (path: string, headers: Record<string, string> = {}) => fetch(platform.baseUrl + path, { headers })

const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; " +
  "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

describe("GET /console", () => {
  it("serves the page with the strict headers: CSP without inline scripts, no framing, no sniffing, no referrer, own opener", async () => {
    const res = await get("/console")
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8")
    expect(res.headers.get("content-security-policy")).toBe(CSP)
    expect(res.headers.get("x-content-type-options")).toBe("nosniff")
    expect(res.headers.get("referrer-policy")).toBe("no-referrer")
    expect(res.headers.get("cross-origin-opener-policy")).toBe("same-origin")
    expect(res.headers.get("cache-control")).toBe("no-cache")
    const html = await res.text()
    // Nothing inline: every script has a src, no style element or attribute, no event handler attribute.
    expect(html).toMatch(/<script type="module" src="\/console\/assets\/main-[A-Z0-9]+\.js"><\/script>/)
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/)
    expect(html).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i)
  })

  it("serves the same page for any path under /console (the client routes), with the same ETag and a 304 for it", async () => {
    const page = await get("/console")
    for (const path of ["/console/", "/console/contacts/00000000-0000-4000-8000-000000000000", "/console/deliveries?view=webhooks", "/console/a/b/c"]) {
      const res = await get(path)
      expect([path, res.status, res.headers.get("content-security-policy")]).toEqual([path, 200, CSP])
      expect(res.headers.get("etag")).toBe(page.headers.get("etag"))
    }
    const again = await get("/console/journeys", { "if-none-match": page.headers.get("etag")! })
    expect(again.status).toBe(304)
  })
})

describe("GET /console/assets/{file}", () => {
  const assetsOf = async () => [...(await (await get("/console")).text()).matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((m) => m[1]!)

  it("serves the script and the stylesheet the page names, immutable for a year, gzipped when accepted", async () => {
    const assets = await assetsOf()
    expect(assets.map((a) => a.split(".").pop()).sort()).toEqual(["css", "js"])
    for (const path of assets) {
      const plain = await get(path, { "accept-encoding": "identity" })
      expect(plain.status).toBe(200)
      expect(plain.headers.get("cache-control")).toBe("public, max-age=31536000, immutable")
      expect(plain.headers.get("x-content-type-options")).toBe("nosniff")
      expect(plain.headers.get("content-type")).toBe(path.endsWith(".js") ? "application/javascript; charset=utf-8" : "text/css; charset=utf-8")
      const body = Buffer.from(await plain.arrayBuffer())
      // node's fetch decodes gzip itself: the header says it came zipped, the decoded bytes are the same.
      const zipped = await get(path, { "accept-encoding": "gzip" })
      expect(zipped.headers.get("content-encoding")).toBe("gzip")
      expect(Buffer.from(await zipped.arrayBuffer()).equals(body)).toBe(true)
    }
  })

  it("answers 404 in the core error shape for a name no build made", async () => {
    const res = await get("/console/assets/main-NOTAHASH.js")
    expect(res.status).toBe(404)
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("NOT_FOUND")
  })
})
