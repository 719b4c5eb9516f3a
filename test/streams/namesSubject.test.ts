import { describe, expect, it } from "@effect/vitest"
import { encode } from "../../streams/envelope.ts"
import { decode } from "../../streams/msgpack.ts"
import { namesSubject } from "../../streams/namesSubject.ts"

// The default matcher of an erasure's stream scan: whole addresses and numbers, anywhere in a message, within its scope.

const tenant = "0b6f3a52-8f2e-4c39-9a4b-3f1d2c5e7a10"
const contactId = "7d4c2b1a-1111-4a2b-8c3d-9e8f7a6b5c4d"
const matches = namesSubject({
  scope: { tenant_id: tenant, sandbox: false },
  contactIds: [contactId],
  identifiers: [{ kind: "email", value: "anna.ruiz@example.com" }, { kind: "phone", value: "+34600111222" }],
  names: ["Anna Ruiz"]
})
const test = (value: unknown) => {
  const raw = encode(value)
  return matches(decode(raw), raw)
}
const inScope = (payload: unknown) => ({ tenant_id: tenant, sandbox: false, payload })

describe("namesSubject", () => {
  it("finds the subject's email, phone, contact id or name anywhere in a message", () => {
    expect(test(inScope({ guest: { email: "Anna.Ruiz@Example.com" } }))).toBe(true)
    expect(test(inScope({ text: "Dear anna.ruiz@example.com, welcome." }))).toBe(true)
    expect(test(inScope({ guests: [{ phone: "+34 600 11 12 22" }] }))).toBe(true)
    expect(test(inScope({ phone: "0034600111222" }))).toBe(true)
    expect(test(inScope({ note: "call +34600111222 tomorrow" }))).toBe(true)
    expect(test(inScope({ contact_id: contactId.toUpperCase() }))).toBe(true)
    expect(test(inScope({ [contactId]: 1 }))).toBe(true)
    expect(test(inScope({ name: " anna ruiz " }))).toBe(true)
    // A webhook job's body: JSON text inside the message.
    expect(test(inScope({ body: JSON.stringify({ data: { contact: { id: "x", first_name: "Anna Ruiz" } } }) }))).toBe(true)
    // An encoded payload kept as bytes.
    expect(test(inScope({ data: encode({ email: "anna.ruiz@example.com" }) }))).toBe(true)
    expect(test(inScope({ data: Buffer.from("to: anna.ruiz@example.com") }))).toBe(true)
  })

  it("leaves other guests, other tenants and other modes alone", () => {
    expect(test(inScope({ email: "hanna.ruiz@example.com" }))).toBe(false)
    expect(test(inScope({ email: "anna.ruiz@example.com.au" }))).toBe(false)
    expect(test(inScope({ phone: "+346001112229" }))).toBe(false)
    expect(test(inScope({ phone: "+44 600 11 12 22" }))).toBe(false)
    expect(test(inScope({ name: "Anna Ruizova", first_name: "Anna" }))).toBe(false)
    expect(test({ tenant_id: "11111111-2222-4333-8444-555555555555", sandbox: false, email: "anna.ruiz@example.com" })).toBe(false)
    expect(test({ tenant_id: tenant, sandbox: true, email: "anna.ruiz@example.com" })).toBe(false)
  })

  it("reads bytes that are no msgpack as text, and names only with a scope", () => {
    expect(matches(undefined, Buffer.from("plain anna.ruiz@example.com"))).toBe(true)
    expect(matches(undefined, Buffer.from("plain hanna@example.com"))).toBe(false)
    const unscoped = namesSubject({ contactIds: [], identifiers: [], names: ["Anna Ruiz"] })
    expect(unscoped({ name: "Anna Ruiz" }, new Uint8Array())).toBe(false)
  })
})
