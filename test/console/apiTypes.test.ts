import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { API_TYPES_PATH, apiTypes } from "./apiTypes.ts"
import { ROOT } from "../docs/reference/sourceFiles.ts"

describe("the console's API types are what the platform's /openapi.json says", () => {
  it("src/console/web/api.d.ts is committed unchanged from openapi-typescript's output", async () => {
    const committed = readFileSync(join(ROOT, API_TYPES_PATH), "utf8")
    const generated = await apiTypes()
    const a = committed.split("\n")
    const b = generated.split("\n")
    const line = a.findIndex((l, i) => l !== b[i])
    expect(committed === generated, `${API_TYPES_PATH} is stale at line ${line + 1}:\n  committed: ${a[line] ?? "(end of file)"}\n  generated: ${b[line] ?? "(end of file)"}\n` +
      "Run `npx node test/console/generateApiTypes.ts` and commit what it wrote.").toBe(true)
  })
})
