import { describe, expect, it } from "@effect/vitest"
import { hasScope, Scopes } from "../../src/auth/keys.ts"

describe("hasScope", () => {
  it("grants a scope the key names", () => {
    expect(hasScope(["guests:read"], "guests:read")).toBe(true)
    expect(hasScope(["guests:read"], "guests:write")).toBe(false)
  })

  it("lets * grant every scope but keys:manage, which must be named", () => {
    for (const scope of Scopes.filter((s) => s !== "keys:manage")) expect(hasScope(["*"], scope), scope).toBe(true)
    expect(hasScope(["*"], "keys:manage")).toBe(false)
    expect(hasScope(["keys:manage"], "keys:manage")).toBe(true)
    expect(hasScope(["*", "keys:manage"], "keys:manage")).toBe(true)
  })

  it("does not let keys:manage stand for other scopes", () => {
    expect(hasScope(["keys:manage"], "guests:read")).toBe(false)
    expect(hasScope(["keys:manage"], "*")).toBe(false)
  })
})
