import type { StaffRole } from "../../schemas/staff.ts"

// What each staff role may call, decided per endpoint by the authentication middleware (src/staff/sessionEdge.ts).

/**
 * Scopes of the admin reads: a viewer's or operator's reads stop before them (API keys, staff, the audit log, privacy
 * requests). An endpoint is an admin read when every scope it accepts is one of these.
 */
const ADMIN_SCOPES: ReadonlySet<string> = new Set(["keys:manage", "staff:manage", "audit:read", "privacy:read", "privacy:write"])

/**
 * An admin session holds what an all-scope key holds, plus the scopes `*` does not grant that an administrator needs:
 * staff, keys, the audit log. Not `privacy:write`: an erasure stays with a key minted for it.
 */
export const ADMIN_SESSION_SCOPES: ReadonlyArray<string> = ["*", "staff:manage", "keys:manage", "audit:read"]

/** The scopes a session's principal carries: an admin's; none for the others, whose calls the role decides alone. */
export const sessionScopes = (role: StaffRole): ReadonlyArray<string> => (role === "admin" ? ADMIN_SESSION_SCOPES : [])

const READS = new Set(["GET", "HEAD", "OPTIONS"])
export const isReadMethod = (method: string) => READS.has(method.toUpperCase())

export interface Endpoint {
  readonly method: string
  /** The scopes the endpoint accepts, any one enough; empty when any caller of the account may. */
  readonly accepted: ReadonlyArray<string>
  /** Marked with the OperatorAction annotation. */
  readonly operatorAction: boolean
}

/**
 * The least role this endpoint needs for a viewer or operator session: `viewer` for a read that is not an admin's,
 * `operator` for an operator action, `admin` for everything else (admin sessions are checked by scope).
 */
export const roleNeeded = (endpoint: Endpoint): StaffRole => {
  const adminRead = endpoint.accepted.length > 0 && endpoint.accepted.every((s) => ADMIN_SCOPES.has(s))
  if (isReadMethod(endpoint.method) && !adminRead) return "viewer"
  if (endpoint.operatorAction) return "operator"
  return "admin"
}

const RANK: Record<StaffRole, number> = { viewer: 0, operator: 1, admin: 2 }

/** Whether a role reaches the role an endpoint needs (each role holds everything of the ones below it). */
export const roleAllows = (role: StaffRole, needed: StaffRole) => RANK[role] >= RANK[needed]
