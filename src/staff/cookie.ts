import { createHash, timingSafeEqual } from "node:crypto"
import { STAFF_SESSION_COOKIE } from "../../schemas/staffApi.ts"

// The staff session's cookie and its CSRF token: pure functions, so each decision is tested on its own.

/** A session ends 12 hours after its last use, and 7 days after sign-in whatever its use. */
export const IDLE_MS = 12 * 60 * 60_000
export const ABSOLUTE_MS = 7 * 24 * 60 * 60_000

/** When a session ends if not used again: its idle end or its absolute end, whichever comes first. */
export const sessionEnd = (s: { readonly createdAt: number; readonly lastSeenAt: number }) =>
  Math.min(s.lastSeenAt + IDLE_MS, s.createdAt + ABSOLUTE_MS)

/**
 * Whether the request came to a loopback host (its Host header, port aside): there the cookie may go without `Secure`
 * (a development machine's plain http://127.0.0.1); anywhere else the platform is reached through TLS and the cookie
 * must never travel in clear.
 */
export const isLoopbackHost = (host: string | undefined): boolean => {
  if (host === undefined) return false
  const name = host.startsWith("[") ? host.slice(1, host.indexOf("]")) : host.replace(/:\d+$/, "")
  const lower = name.toLowerCase()
  return lower === "localhost" || lower.endsWith(".localhost") || lower === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(lower)
}

const attributes = (secure: boolean, maxAgeSeconds: number) =>
  `Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure ? "; Secure" : ""}`

/** The Set-Cookie of a new session: HttpOnly (no script reads it), SameSite=Strict, for the whole API, as long as a session may live. */
export const sessionCookie = (token: string, secure: boolean) =>
  `${STAFF_SESSION_COOKIE}=${token}; ${attributes(secure, ABSOLUTE_MS / 1000)}`

/** The Set-Cookie that clears it (sign-out, or a cookie naming no live session). */
export const clearedCookie = (secure: boolean) => `${STAFF_SESSION_COOKIE}=; ${attributes(secure, 0)}`

/**
 * The session's CSRF token, derived from its secret token: nothing to store, the same on every ingress, and a page
 * of another site can neither read it (it is only in answers to this origin) nor compute it (it needs the cookie).
 */
export const csrfTokenOf = (token: string) => createHash("sha256").update(`gep-staff-csrf:${token}`).digest("base64url")

/** Whether a request's X-CSRF-Token is its session's (compared in constant time). */
export const csrfMatches = (token: string, header: string | undefined) => {
  if (header === undefined) return false
  const expected = Buffer.from(csrfTokenOf(token))
  const given = Buffer.from(header)
  return expected.length === given.length && timingSafeEqual(expected, given)
}
