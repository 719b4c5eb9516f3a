import { describe, expect, it } from "@effect/vitest"
import { bodyText, mutate, placesFor, PROTOTYPE_KEYS } from "./openapiArbitrary.ts"

// The fuzz's prototype classes must reach the wire: `o.__proto__ = v` sets a prototype and JSON.stringify then drops it.
describe("the fuzz's prototype-named keys", () => {
  const body = { guest: { first_name: "Ana", phone: "+34600000000" }, tags: ["vip"] }

  it("puts each name on the wire as an own key of the object it picked, __proto__ included", () => {
    const seen = new Set<string>()
    for (let pick = 0; pick < placesFor(body, "proto-key"); pick++) {
      const text = bodyText(mutate(body, "proto-key", pick))
      const name = PROTOTYPE_KEYS[pick % PROTOTYPE_KEYS.length]!
      expect(text, text).toContain(`"${name}":`)
      expect(Object.hasOwn(JSON.parse(text), "guest")).toBe(true)
      seen.add(name)
    }
    expect([...seen].sort()).toEqual([...PROTOTYPE_KEYS].sort())
    expect(PROTOTYPE_KEYS.slice(0, 3)).toEqual(["__proto__", "constructor", "prototype"])
  })

  it("renames a key to one, leaving the value and never the caller's object changed", () => {
    const text = bodyText(mutate(body, "proto-rename", 0))
    expect(text).toContain('"__proto__":')
    expect(body.guest.first_name).toBe("Ana")
    expect(Object.getPrototypeOf(body)).toBe(Object.prototype)
  })
})
