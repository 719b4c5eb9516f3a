import { describe, expect, it } from "@effect/vitest"
import { hasScope, Scopes } from "../../src/auth/keys.ts"

describe("hasScope", () => {
  it("grants a scope the key names", () => {
    expect(hasScope(["guests:read"], "guests:read")).toBe(true)
    expect(hasScope(["guests:read"], "guests:write")).toBe(false)
  })

  it("lets * grant every scope but keys:manage, privacy:write and staff:manage, which must be named", () => {
    const explicit = ["keys:manage", "privacy:write", "staff:manage"]
    for (const scope of Scopes.filter((s) => !explicit.includes(s))) expect(hasScope(["*"], scope), scope).toBe(true)
    for (const scope of explicit) {
      expect(hasScope(["*"], scope), scope).toBe(false)
      expect(hasScope([scope], scope)).toBe(true)
      expect(hasScope(["*", scope], scope)).toBe(true)
    }
  })

  it("does not let keys:manage stand for other scopes", () => {
    expect(hasScope(["keys:manage"], "guests:read")).toBe(false)
    expect(hasScope(["keys:manage"], "*")).toBe(false)
  })
})
