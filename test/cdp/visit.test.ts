import { describe, expect, it } from "@effect/vitest"
import { identityOf } from "../../core/cdp/identify.ts"
import { hostOf, originAllowed, stripDomain } from "../../core/cdp/visit.ts"

describe("stripDomain", () => {
  it("keeps path, query and fragment; drops scheme and host", () => {
    expect(stripDomain("https://www.hotel.com/rooms/sea?lang=es#photos")).toBe("/rooms/sea?lang=es#photos")
    expect(stripDomain("http://hotel.com")).toBe("/")
    expect(stripDomain("https://hotel.com?x=1")).toBe("/?x=1")
    expect(stripDomain("//cdn.hotel.com/a.js")).toBe("/a.js")
    expect(stripDomain("HTTPS://user:pw@Hotel.com:8443/p")).toBe("/p")
  })
  it("leaves relative URLs as sent", () => {
    expect(stripDomain("/book")).toBe("/book")
    expect(stripDomain("rooms?x")).toBe("rooms?x")
  })
})

describe("originAllowed", () => {
  it("allows any origin (or none) when no domain is configured", () => {
    expect(originAllowed(undefined, [])).toBe(true)
    expect(originAllowed("https://anything.example", [])).toBe(true)
  })
  it("allows a listed domain and its subdomains only", () => {
    expect(originAllowed("https://hotel.com", ["hotel.com"])).toBe(true)
    expect(originAllowed("https://book.HOTEL.com:8443", ["hotel.com"])).toBe(true)
    expect(originAllowed("https://evilhotel.com", ["hotel.com"])).toBe(false)
    expect(originAllowed("https://hotel.com.evil.io", ["hotel.com"])).toBe(false)
    expect(originAllowed(undefined, ["hotel.com"])).toBe(false)
    expect(originAllowed("null", ["hotel.com"])).toBe(false)
    expect(originAllowed("ftp://hotel.com", ["hotel.com"])).toBe(false)
  })
  it("reads the host of an origin", () => {
    expect(hostOf("https://WWW.Hotel.com:443")).toBe("www.hotel.com")
    expect(hostOf("not an origin")).toBeUndefined()
  })
})

describe("identityOf", () => {
  it("normalises email and phone; one usable identifier is enough", () => {
    expect(identityOf({ email: " Ana@Gmail.com " })).toEqual({ ok: true, email: "ana@gmail.com" })
    expect(identityOf({ email: "not-an-email", phone: "+34 600 12 34 56" })).toEqual({ ok: true, phone: "+34600123456" })
  })
  it("refuses when none is usable, naming each field", () => {
    expect(identityOf({})).toMatchObject({ ok: false, code: "VALIDATION_ERROR", details: {} })
    expect(identityOf({ email: "not-an-email" })).toMatchObject({ ok: false, code: "VALIDATION_ERROR", details: { email: [expect.any(String)] } })
    expect(identityOf({ email: "noreply@hotel.com" })).toMatchObject({ ok: false, code: "NOT_A_PERSON" })
  })
})
