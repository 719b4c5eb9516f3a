import { describe, expect, it } from "@effect/vitest"
import { ABSOLUTE_MS, clearedCookie, csrfMatches, csrfTokenOf, IDLE_MS, isLoopbackHost, sessionCookie, sessionEnd } from "../../src/staff/cookie.ts"
import { roleAllows, roleNeeded, sessionScopes } from "../../src/staff/roles.ts"

describe("the staff session cookie", () => {
  it("is Secure everywhere but on a loopback host", () => {
    for (const host of ["127.0.0.1:8080", "127.0.0.1", "localhost:3000", "LOCALHOST", "[::1]:8080", "console.localhost"]) expect(isLoopbackHost(host), host).toBe(true)
    for (const host of ["hotel.example.com", "console.gep.io:443", "10.0.0.5:8080", "127.example.com", "[2001:db8::1]:443", undefined]) {
      expect(isLoopbackHost(host), String(host)).toBe(false)
    }
  })

  it("is HttpOnly, SameSite=Strict, for the whole API, as long as a session may live", () => {
    const secure = sessionCookie("gss_abc", true)
    expect(secure).toBe(`gep_staff_session=gss_abc; Path=/; HttpOnly; SameSite=Strict; Max-Age=${ABSOLUTE_MS / 1000}; Secure`)
    expect(sessionCookie("gss_abc", false)).not.toContain("Secure")
    expect(clearedCookie(true)).toBe("gep_staff_session=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0; Secure")
  })

  it("has a CSRF token derived from the session's token, checked in constant time", () => {
    const csrf = csrfTokenOf("gss_one")
    expect(csrf).not.toContain("gss_one")
    expect(csrfMatches("gss_one", csrf)).toBe(true)
    expect(csrfMatches("gss_two", csrf)).toBe(false)
    expect(csrfMatches("gss_one", undefined)).toBe(false)
    expect(csrfMatches("gss_one", `${csrf}x`)).toBe(false)
  })

  it("ends 12 hours after its last use, 7 days after sign-in at most", () => {
    expect(sessionEnd({ createdAt: 0, lastSeenAt: 0 })).toBe(IDLE_MS)
    expect(sessionEnd({ createdAt: 0, lastSeenAt: ABSOLUTE_MS - 1_000 })).toBe(ABSOLUTE_MS)
  })
})

describe("the roles", () => {
  const get = (accepted: Array<string>, operatorAction = false) => ({ method: "GET", accepted, operatorAction })
  const post = (accepted: Array<string>, operatorAction = false) => ({ method: "POST", accepted, operatorAction })
  it("lets a viewer read all but the admin reads, an operator also the operator actions, the rest an admin", () => {
    expect(roleNeeded(get(["guests:read"]))).toBe("viewer")
    expect(roleNeeded(get(["webhooks:manage"]))).toBe("viewer")
    for (const admin of [["keys:manage"], ["staff:manage"], ["audit:read"], ["privacy:read", "privacy:write"]]) expect(roleNeeded(get(admin))).toBe("admin")
    expect(roleNeeded(post(["webhooks:manage"], true))).toBe("operator")
    expect(roleNeeded(post(["guests:write"]))).toBe("admin")
    expect(roleAllows("viewer", "operator")).toBe(false)
    expect(roleAllows("operator", "viewer")).toBe(true)
    expect(roleAllows("admin", "operator")).toBe(true)
    expect(sessionScopes("admin")).toEqual(["*", "staff:manage", "keys:manage", "audit:read"])
    expect(sessionScopes("viewer")).toEqual([])
  })
})
