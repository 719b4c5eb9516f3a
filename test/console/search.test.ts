import { describe, expect, it } from "@effect/vitest"
import { searchQuery } from "../../src/console/web/search.ts"

// The console's contact search box: which filter of GET /api/v1/contacts its text becomes.
describe("searchQuery", () => {
  it("sends an address as email, a number as phone, anything else as name", () => {
    expect(searchQuery(" Ana.Garcia@Gmail.com ")).toEqual({ email: "Ana.Garcia@Gmail.com" })
    expect(searchQuery("+34 600 111 222")).toEqual({ phone: "+34 600 111 222" })
    expect(searchQuery("(0034) 600-111-222")).toEqual({ phone: "(0034) 600-111-222" })
    expect(searchQuery("ana gar")).toEqual({ name: "ana gar" })
    expect(searchQuery("Núñez")).toEqual({ name: "Núñez" })
    expect(searchQuery("12345")).toEqual({ name: "12345" })
    expect(searchQuery("   ")).toEqual({})
  })
})
