import { describe, expect, it } from "@effect/vitest"
import { contactOf } from "../../../core/webhook/objectKey.ts"

const id = "5B0F0C8E-6F0E-4C57-9A77-0D7A3A1F5A11"

describe("contactOf (the contact a webhook event is about, for its timeline)", () => {
  it("reads the contact of a contact, message, conversation or journey event, lower-cased", () => {
    for (const data of [{ contact: { id } }, { message: { id: "m", contact_id: id } }, { conversation: { contact_id: id } }, { run: { contact_id: id } }]) {
      expect(contactOf(data), JSON.stringify(data)).toBe(id.toLowerCase())
    }
  })
  it("is null when the data names no contact, or something that is not a UUID", () => {
    for (const data of [null, "x", {}, { member_id: "m" }, { contact: { id: "not-a-uuid" } }, { contact_id: 12 }, { ["__proto__"]: { contact_id: id } }]) {
      expect(contactOf(data), JSON.stringify(data)).toBeNull()
    }
  })
})
