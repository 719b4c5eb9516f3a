import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { DOCS, errorBody, REQUEST_ERRORS, type RequestErrorCode } from "../../src/website/answers.ts"
import { useEncryptionKey } from "../support/messaging.ts"
import { createTenant, request, startPlatform, type RunningPlatform, type TestTenant } from "../support/platform.ts"
import { createSource, serverPost } from "./support.ts"

// Every `docs` link an error body can carry leads to a page that exists, at an anchor that exists (issue 24, B4).
// The links come from the codes' catalogue the error bodies are made from, so a new code is followed too.
useEncryptionKey()
let platform: RunningPlatform
let tenant: TestTenant

beforeAll(async () => {
  platform = await startPlatform("errorspage")
  tenant = await createTenant("errorspage")
})
afterAll(async () => {
  await platform?.stop()
})

/** Every link the platform can put in an error body (and the readiness answer's link to the page itself). */
const links = () => [
  ...(Object.keys(REQUEST_ERRORS) as Array<RequestErrorCode>).map((code) => errorBody(code).error.docs),
  DOCS
]

const follow = async (link: string) => {
  const url = new URL(link, platform.baseUrl)
  const res = await fetch(url)
  return { status: res.status, type: res.headers.get("content-type"), html: await res.text(), anchor: url.hash.slice(1) }
}

describe("GET /docs/website-events", () => {
  it("every docs link of an error body answers 200 with its code's anchor, the code's meaning and fix", async () => {
    expect(links().length).toBeGreaterThan(10)
    for (const link of links()) {
      const page = await follow(link)
      expect(page.status, link).toBe(200)
      expect(page.type).toBe("text/html; charset=utf-8")
      if (page.anchor !== "") expect(page.html, link).toContain(`id="${page.anchor}"`)
    }
    const page = await follow(DOCS)
    for (const [code, { status }] of Object.entries(REQUEST_ERRORS)) {
      expect(page.html).toMatch(new RegExp(`<section id="${code}"><h2><code>${code}</code> <small>HTTP ${status}</small></h2>`))
    }
    // HTML-significant characters of the catalogue are escaped (the signature fix names <unix seconds>).
    expect(page.html).toContain("t=&lt;unix seconds&gt;")
  })

  it("the link of a real refusal resolves, and /docs itself still serves the API reference", async () => {
    const source = await createSource(platform.baseUrl, tenant.live_key)
    const refused = await request(platform.baseUrl, "POST", "/api/v1/website-events", {
      raw: JSON.stringify({ event: "cart.viewed" }), headers: { origin: "https://evil.example", "x-svc-key": source.browser_key }
    })
    expect(refused.status).toBe(403)
    expect(refused.body.error.docs).toBe("/docs/website-events#origin_not_allowed")
    const page = await follow(refused.body.error.docs)
    expect(page.status).toBe(200)
    expect(page.html).toContain(`id="origin_not_allowed"`)
    const notJson = await serverPost(platform.baseUrl, source.server_key, "{")
    expect((await follow(notJson.body.error.docs)).html).toContain(`id="invalid_json"`)
    const reference = await fetch(`${platform.baseUrl}/docs`)
    expect(reference.status).toBe(200)
    expect((await reference.text()).includes("Scalar.createApiReference"), "the Scalar page").toBe(true)
  })
})
