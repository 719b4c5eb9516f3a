import { Clock, Context, Effect, Layer } from "effect"
import { credentialHash, randomCredential } from "../../core/credentials.ts"
import { Database, type Tx } from "../../core/db/Database.ts"
import type { Session, StaffRole } from "../../schemas/staff.ts"
import { csrfTokenOf, sessionEnd } from "./cookie.ts"
import { publicStaff, staffOf } from "./StaffAccounts.ts"

/** `last_seen_at` is written at most this often per session: the idle expiry is 12 hours, a minute's slack is nothing. */
const TOUCH_EVERY_MS = 60_000

/** A live session: the token's digest (what the table keeps) and the API's view of it. */
export interface LiveSession {
  readonly token_hash: Uint8Array
  readonly session: Session
}

const viewOf = (r: Record<string, unknown>, token: string, end: number): Session => {
  const staff = staffOf(r)
  return { staff: publicStaff(staff), tenant_id: staff.tenant_id, role: staff.role as StaffRole, csrf_token: csrfTokenOf(token), expires_at: new Date(end).toISOString() }
}

const SESSION_OF = `SELECT a.id, a.tenant_id, a.email, a.role, a.created_at, a.last_signed_in_at,
    s.created_at AS session_created_at, s.last_seen_at
  FROM staff_sessions s JOIN staff_accounts a ON a.id = s.staff_id AND a.removed_at IS NULL
  WHERE s.token_hash = $1`

/**
 * Staff sessions: a random token in the cookie, its SHA-256 digest in the table (a copy of the table signs no one in).
 * Every request reads the session with its member, so a removed member or a changed role holds at the next request.
 * Expiry is decided on `Clock`: 12 hours idle (sliding), 7 days at most.
 */
export class StaffSessions extends Context.Service<StaffSessions, {
  /** A new session for a member, in the caller's transaction (the sign-in's): the token, shown only in the cookie. */
  readonly create: (tx: Tx, staffId: string, tenantId: string, now: number) => Promise<{ token: string; token_hash: Uint8Array }>
  /** The live session of a cookie's token, or undefined (unknown, ended, expired, or its member removed). */
  readonly authenticate: (token: string) => Effect.Effect<LiveSession | undefined>
  /** Ends a session (sign-out). */
  readonly end: (tokenHash: Uint8Array) => Effect.Effect<void>
}>()("app/staff/StaffSessions") {
  static readonly layer = Layer.effect(StaffSessions, Effect.gen(function*() {
    const db = yield* Database

    const create = async (tx: Tx, staffId: string, tenantId: string, now: number) => {
      const token = randomCredential("gss_")
      const token_hash = credentialHash(token)
      const at = new Date(now)
      await tx`INSERT INTO staff_sessions (token_hash, tenant_id, staff_id, created_at, last_seen_at, expires_at)
        VALUES (${token_hash}, ${tenantId}, ${staffId}, ${at}, ${at}, ${new Date(sessionEnd({ createdAt: now, lastSeenAt: now }))})`
      // The member's ended sessions go when they sign in again: the table holds their live ones and a few more.
      await tx`DELETE FROM staff_sessions WHERE staff_id = ${staffId} AND expires_at <= ${at}`
      return { token, token_hash }
    }

    const authenticate = Effect.fn("StaffSessions.authenticate")(function*(token: string) {
      if (!/^gss_[0-9A-Za-z]{20,100}$/.test(token)) return undefined
      const now = yield* Clock.currentTimeMillis
      const token_hash = credentialHash(token)
      const [row] = yield* db.query((sql) => sql.unsafe(SESSION_OF, [token_hash]))
      if (row === undefined) return undefined
      const createdAt = (row.session_created_at as Date).getTime()
      const lastSeenAt = (row.last_seen_at as Date).getTime()
      if (now >= sessionEnd({ createdAt, lastSeenAt })) {
        yield* db.query((sql) => sql`DELETE FROM staff_sessions WHERE token_hash = ${token_hash}`)
        return undefined
      }
      let seen = lastSeenAt
      if (now - lastSeenAt >= TOUCH_EVERY_MS) {
        seen = now
        const end = sessionEnd({ createdAt, lastSeenAt: now })
        yield* db.query((sql) => sql`UPDATE staff_sessions SET last_seen_at = ${new Date(now)}, expires_at = ${new Date(end)} WHERE token_hash = ${token_hash}`)
      }
      return { token_hash, session: viewOf(row, token, sessionEnd({ createdAt, lastSeenAt: seen })) } satisfies LiveSession
    })

    const end = Effect.fn("StaffSessions.end")(function*(tokenHash: Uint8Array) {
      yield* db.query((sql) => sql`DELETE FROM staff_sessions WHERE token_hash = ${tokenHash}`)
    })

    return StaffSessions.of({ create, authenticate, end })
  }))
}
