import { readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Scopes } from "../../schemas/scopes.ts"
import { createKey, createTenant, startPlatform, type RunningPlatform } from "../support/platform.ts"
import { startSmtpSink, type SmtpSink } from "../support/smtpSink.ts"
import { examplesOf, type Example } from "./examples/parse.ts"
import { runPage } from "./examples/run.ts"
import { ROOT } from "./reference/sourceFiles.ts"

// Every request the guides show (```http blocks, test/docs/examples/parse.ts says the format) is sent to a platform
// this file starts, and the answer compared with the ```json answer=STATUS block the page shows after it. Each page
// runs top to bottom against its own fresh tenant. DOCS_EXAMPLES_DIR runs another folder's pages (a guide in progress).

const DIR = process.env.DOCS_EXAMPLES_DIR ?? join(ROOT, "docs", "guide")
const pages = readdirSync(DIR).filter((f) => f.endsWith(".md")).sort().map((f) => {
  const path = join(DIR, f)
  const name = relative(ROOT, path).split("\\").join("/")
  // A page not in the format fails its own test (naming the line), not the collection of the others.
  let examples: ReadonlyArray<Example> | Error
  try {
    examples = examplesOf(name, readFileSync(path, "utf8"))
  } catch (e) {
    examples = e as Error
  }
  return { name, examples }
})

describe("the guides' examples answer as the pages show", () => {
  let platform: RunningPlatform
  let sink: SmtpSink
  // The platform as `npm start` gives a reader: email leaves to a local catcher (an example's send answers `sent`).
  beforeAll(async () => {
    sink = await startSmtpSink()
    process.env.GEP_SMTP_URL = sink.url
    platform = await startPlatform("docs_examples")
  })
  afterAll(async () => {
    await platform?.stop()
    await sink?.close()
  })

  const withExamples = pages.filter((p) => p.examples instanceof Error || p.examples.length > 0)
  it.skipIf(withExamples.length > 0)("no guide page has examples yet", () => {})
  for (const page of withExamples) {
    it(page.name, async () => {
      if (page.examples instanceof Error) throw page.examples
      const tenant = await createTenant("docs")
      const key = await createKey(tenant.tenant_id, Scopes)
      const outcome = await runPage(page.examples, {
        baseUrl: platform.baseUrl, apiKey: key.key, hotelId: tenant.hotel_id, hotelCode: tenant.hotel_code
      })
      expect(outcome.failure, outcome.failure).toBeUndefined()
    })
  }
})
