import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { enhancedStatusOf, errorMeaning } from "../../../core/message/errorMeanings.ts"

describe("errorMeaning", () => {
  it("gives every WhatsApp code the console names a sentence", () => {
    for (const code of ["130429", "131026", "131047", "131051", "131056", "132000", "132001", "133010", "131000", "131005", "131008",
      "131009", "131021", "131031", "132005", "132007", "132012", "132015", "132016", "133004", "131048", "131049", "131050"]) {
      const meaning = errorMeaning("whatsapp", code, null)
      expect(meaning, code).toMatch(/^[A-Z].+\.$/)
    }
    expect(errorMeaning("whatsapp", "131047", "Re-engagement message")).toContain("24 hours")
    expect(errorMeaning("whatsapp", "132015", null)).toContain("paused")
  })

  it("reads an email's enhanced status from the reply text before the reply code", () => {
    expect(errorMeaning("email", "550", "550 5.1.1 <ana@example.com>: Recipient address rejected: User unknown")).toContain("does not exist")
    expect(errorMeaning("email", "552", "552-5.2.2 The email account that you tried to reach is over quota")).toContain("full")
    expect(errorMeaning("email", "550", "550 5.7.26 This mail is unauthenticated")).toContain("SPF, DKIM or DMARC")
    expect(errorMeaning("email", "550", "550 5.1.10 RESOLVER.ADR.RecipientNotFound")).toContain("null MX")
    expect(errorMeaning("email", "554", "554 5.7.1 Service unavailable; Client host blocked")).toContain("policy")
    expect(errorMeaning("email", "550", "550 5.4.1 Recipient address rejected: Access denied")).toContain("refused the address")
  })

  it("falls back from an unknown detail to its class and subject, then to the reply code", () => {
    expect(errorMeaning("email", "451", "451 4.4.2 Connection dropped")).toContain("could not be reached for now")
    expect(errorMeaning("email", "421", "421 4.4.5 Server busy")).toContain("could not be reached for now")
    expect(errorMeaning("email", "450", "450 Mailbox busy, try later")).toContain("retried later")
    expect(errorMeaning("email", "553", null)).toContain("not accepted as written")
    expect(errorMeaning("email", "SMTP_NOT_CONFIGURED", "GEP_SMTP_URL is not set")).toContain("no outgoing mail server")
  })

  it("is null for what it does not know, never a guess", () => {
    expect(errorMeaning("whatsapp", "999999", "who knows")).toBeNull()
    expect(errorMeaning("whatsapp", null, null)).toBeNull()
    expect(errorMeaning("whatsapp", "constructor", null)).toBeNull()
    expect(errorMeaning("email", "299", "299 odd")).toBeNull()
    expect(errorMeaning("email", null, "no status at all")).toBeNull()
    expect(errorMeaning("sms", "550", null)).toBeNull()
  })

  it("finds an enhanced status only as a whole token", () => {
    expect(enhancedStatusOf("550 5.1.1 user unknown")).toBe("5.1.1")
    expect(enhancedStatusOf("version 15.1.10 of the server")).toBeUndefined()
    expect(enhancedStatusOf(null)).toBeUndefined()
  })

  it("never throws and answers a sentence or null for any input", () => {
    fc.assert(fc.property(fc.constantFrom("email", "whatsapp", "x"), fc.option(fc.string()), fc.option(fc.string()), (channel, code, message) => {
      const m = errorMeaning(channel, code, message)
      expect(m === null || (typeof m === "string" && m.endsWith("."))).toBe(true)
    }))
  })
})
