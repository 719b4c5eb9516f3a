import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { match, mismatchText, requestBody, substitute, substituteBody } from "./examples/match.ts"
import { examplesOf, FormatError } from "./examples/parse.ts"

const fixture = (name: string) => readFileSync(new URL(`./examples/fixtures/${name}`, import.meta.url), "utf8")

describe("the examples format: parsing", () => {
  it("reads requests, headers, bodies, answers and skipped blocks with their lines", () => {
    const [create, read, skipped] = examplesOf("reservation.md", fixture("reservation.md"))
    expect(create).toMatchObject({
      line: 5, skip: false,
      request: {
        method: "POST", target: "/api/v1/reservations?lang=en",
        headers: [["Authorization", "Bearer $GEP_API_KEY"], ["Content-Type", "application/json"]]
      },
      answer: { line: 14, status: 201 }
    })
    expect(JSON.parse(create!.request.body!.replace(/"\$\w+"/g, "0").replace(/\$\w+/g, "x"))).toMatchObject({ reservation_id: "PMS-1" })
    expect(read).toMatchObject({ line: 23, request: { method: "GET", target: "/api/v1/reservations/$reservation_id", body: undefined }, answer: { line: 27, status: 200 } })
    expect(skipped).toMatchObject({ line: 33, skip: true, answer: undefined })
  })

  it("refuses a request whose answer is not right after it, naming the page and line", () => {
    expect(() => examplesOf("unanswered.md", fixture("unanswered.md"))).toThrow(new FormatError("unanswered.md", 3, "an http block must be followed right away by a ```json answer=STATUS block (or be marked ```http skip-test)"))
  })

  it("refuses a body without the blank line before it, naming the line of the offending text", () => {
    expect(() => examplesOf("malformed.md", fixture("malformed.md"))).toThrow(/^malformed\.md:6: not a header line/)
  })

  it("leaves pages without http blocks alone, and refuses an answer block with no request", () => {
    expect(examplesOf("plain.md", "# Title\n\n```json\n{}\n```\n")).toEqual([])
    expect(() => examplesOf("orphan.md", "text\n\n```json answer=200\n{}\n```\n")).toThrow(/^orphan\.md:3: an answer block must come right after an http block/)
  })
})

describe("the examples format: comparing answers", () => {
  const answer = {
    success: true,
    data: { reservation_id: "r-1", nights: 3, contacts: [{ contact_id: "c-1", email: "a@b.es", is_new: true }, { contact_id: "c-2" }], extra: 1 }
  }

  it("matches the shown fields as a deep subset, arrays element by element for the elements shown", () => {
    expect(match({ data: { nights: 3, contacts: [{ email: "a@b.es" }] } }, answer, new Map())).toBeUndefined()
    expect(match({ data: { "…": "…", contacts: ["…", { contact_id: "c-2" }] } }, answer, new Map())).toBeUndefined()
  })

  it("names the first mismatching path", () => {
    const m = match({ data: { contacts: [{ email: "a@b.es" }, { contact_id: "c-3" }] } }, answer, new Map())
    expect(m).toEqual({ path: "data.contacts[1].contact_id", shown: "c-3", actual: "c-2" })
    expect(mismatchText(m!)).toBe(`at data.contacts[1].contact_id: the page shows "c-3", the platform answered "c-2"`)
    expect(match({ data: { contacts: ["…", "…", "…"] } }, answer, new Map())).toMatchObject({ path: "data.contacts[2]", actual: undefined })
    expect(match({ data: { missing: "…" } }, answer, new Map())).toMatchObject({ path: "data.missing" })
    expect(match({ data: { nights: "3" } }, answer, new Map())).toMatchObject({ path: "data.nights", shown: "3", actual: 3 })
  })

  it("captures $name values, which later paths, headers and bodies use", () => {
    const captured = new Map<string, unknown>([["GEP_API_KEY", "k"]])
    expect(match({ data: { reservation_id: "$rid", nights: "$n" } }, answer, captured)).toBeUndefined()
    expect(substitute("/api/v1/reservations/$rid?x=$n", captured)).toBe("/api/v1/reservations/r-1?x=3")
    expect(substitute("Bearer $GEP_API_KEY", captured)).toBe("Bearer k")
    expect(JSON.parse(substituteBody(`{ "n": "$n", "id": "$rid", "note": "stay of $n nights" }`, captured))).toEqual({ n: 3, id: "r-1", note: "stay of 3 nights" })
    expect(() => substitute("/x/$unknown", captured)).toThrow("$unknown is not defined")
  })

  it("sends an abbreviated request body without its \"…\": \"…\" entries", () => {
    const shown = `{ "from_address": "$from", "…": "…", "hotel_overrides": { "…": "…", "x": { "from_name": "A" } } }`
    expect(JSON.parse(requestBody(shown, new Map([["from", "a@b.es"]])))).toEqual({ from_address: "a@b.es", hotel_overrides: { x: { from_name: "A" } } })
    expect(requestBody(`{"note": "…"}`, new Map())).toBe(`{"note":"…"}`)
  })
})
