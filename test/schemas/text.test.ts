import { describe, expect, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import fc from "fast-check"
import { issueDetails } from "../../src/http/issues.ts"
import {
  FREE_FORM_LIMITS, FreeFormObject, FreeFormValue, freeFormIssues, isSafeText, printable, SafeString, TEXT_POLICY_MESSAGE
} from "../../schemas/text.ts"

/** The policy said plainly: no NUL, and well-formed UTF-16 (every surrogate in a pair). */
const reference = (s: string) => !s.includes("\u0000") && s.isWellFormed()

/** Strings of any UTF-16 code units: lone surrogates and NUL included. */
const anyText = fc.string({ unit: "binary" })
const safeText = fc.string({ unit: "grapheme" }).filter((s) => !s.includes("\u0000"))

const decodeWith = <S extends Schema.Top & { readonly DecodingServices: never }>(schema: S) => (u: unknown) => {
  const r = Schema.decodeUnknownResult(schema as never, { errors: "all" })(u) as Result.Result<unknown, Schema.SchemaError>
  return Result.isSuccess(r) ? undefined : issueDetails(r.failure.issue)
}

const nested = (levels: number): unknown => {
  let v: unknown = 1
  for (let i = 1; i < levels; i++) v = { a: v }
  return levels === 0 ? 1 : { a: v }
}

describe("the text policy", () => {
  it("refuses exactly NUL and unpaired surrogates", () => {
    fc.assert(fc.property(anyText, (s) => {
      expect(isSafeText(s)).toBe(reference(s))
    }), { numRuns: 2_000 })
    for (const bad of ["\u0000", "a\u0000b", "\ud800", "x\udfff", "\udc00\ud800", "😀".slice(0, 1)]) expect(isSafeText(bad)).toBe(false)
    for (const good of ["", "García", "😀 emoji", "\u0001\u001f control", "\uffff", "日本語"]) expect(isSafeText(good)).toBe(true)
  })

  it("SafeString agrees with the predicate and names the field", () => {
    const decode = decodeWith(Schema.Struct({ name: SafeString }))
    fc.assert(fc.property(anyText, (s) => {
      const details = decode({ name: s })
      expect(details === undefined).toBe(reference(s))
      if (details) expect(details).toEqual({ name: [TEXT_POLICY_MESSAGE] })
    }), { numRuns: 1_000 })
  })

  it("prints refused characters as escapes", () => {
    expect(printable("a\u0000b\ud800")).toBe("a\\u0000b\\ud800")
    fc.assert(fc.property(safeText, (s) => {
      expect(printable(s)).toBe(s)
    }))
  })
})

describe("free-form values", () => {
  const small = { ...FREE_FORM_LIMITS, maxKeys: 50, maxBytes: 4_096 }

  it("accept any JSON within the bounds whose keys and strings are safe text", () => {
    const json = fc.jsonValue({ maxDepth: 6, depthSize: "small" }).filter((v) =>
      JSON.stringify(v).length < 2_000 && !/\\u0000|\\ud[89a-f]/i.test(JSON.stringify(v)))
    fc.assert(fc.property(json, (v) => {
      const keys = JSON.stringify(v).split('":').length - 1
      if (keys <= small.maxKeys) expect(freeFormIssues(v, small)).toEqual([])
    }))
  })

  it("name the path of an unsafe key or string", () => {
    expect(freeFormIssues({ a: [1, { "k\u0000": 2 }], b: "\ud800" })).toEqual(expect.arrayContaining([
      { path: ["a", 1, "k\u0000"], message: `has a key that ${TEXT_POLICY_MESSAGE}` },
      { path: ["b"], message: TEXT_POLICY_MESSAGE }
    ]))
    const decode = decodeWith(Schema.Struct({ metadata: FreeFormObject() }))
    expect(decode({ metadata: { ok: { "bad\u0000key": 1 } } })).toEqual({ "metadata.ok.bad\\u0000key": [`has a key that ${TEXT_POLICY_MESSAGE}`] })
    expect(decode({ metadata: { list: ["fine", "lone \udc00"] } })).toEqual({ "metadata.list[1]": [TEXT_POLICY_MESSAGE] })
  })

  it("bound the depth: 32 levels pass, 33 do not, and 500,000 cost no stack", () => {
    expect(freeFormIssues(nested(32))).toEqual([])
    expect(freeFormIssues(nested(33))).toEqual([{ path: [], message: "must not nest objects and arrays more than 32 levels deep" }])
    const deep = JSON.parse("[".repeat(500_000) + "]".repeat(500_000))
    const started = performance.now()
    expect(freeFormIssues(deep).map((i) => i.message)).toEqual(["must not nest objects and arrays more than 32 levels deep"])
    expect(performance.now() - started).toBeLessThan(200)
  })

  it("bound the key count and the encoded size", () => {
    const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]))
    expect(freeFormIssues(keys(1_000))).toEqual([])
    expect(freeFormIssues(keys(1_001))).toEqual([{ path: [], message: "must hold at most 1000 keys (all levels together)" }])
    expect(freeFormIssues({ s: "x".repeat(65_000) })).toEqual([])
    expect(freeFormIssues({ s: "x".repeat(65_536) })).toEqual([{ path: [], message: "must be at most 65536 bytes as JSON" }])
    // Multi-byte text is measured in UTF-8 bytes, not characters.
    expect(freeFormIssues({ s: "€".repeat(22_000) })).toEqual([{ path: [], message: "must be at most 65536 bytes as JSON" }])
    // A huge flat array stops the walk early.
    expect(freeFormIssues(new Array(1_000_000).fill(0)).map((i) => i.message)).toEqual(["must be at most 65536 bytes as JSON"])
  })

  it("refuse numbers that are not finite (JSON's 1e400 parses to Infinity)", () => {
    expect(freeFormIssues(JSON.parse('{"n": 1e400}'))).toEqual([{ path: ["n"], message: "must be a finite number" }])
  })

  it("FreeFormValue takes any JSON value under the same rules", () => {
    const decode = decodeWith(Schema.Struct({ address: FreeFormValue() }))
    for (const ok of ["Calle Mayor 1", 5, null, true, ["a"], { city: "Madrid" }]) expect(decode({ address: ok })).toBeUndefined()
    expect(decode({ address: { city: "Ma\u0000drid" } })).toEqual({ "address.city": [TEXT_POLICY_MESSAGE] })
    expect(decode({ address: nested(40) })).toEqual({ address: ["must not nest objects and arrays more than 32 levels deep"] })
  })
})
