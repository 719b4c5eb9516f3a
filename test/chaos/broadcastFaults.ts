import type postgres from "postgres"
import type { TestTenant } from "../support/platform.ts"
import { eventually } from "../support/webhook.ts"

// The broadcast fault test's setup and probes: an audience filled by SQL with the skips it must produce, a hold that
// stops the snapshot inside its transaction, and the broadcast's state read straight from the database.

export interface Audience {
  /** Every contact of the audience, in id order (the snapshot's keyset order). */
  readonly ordered: ReadonlyArray<string>
  /** Every address of the audience, and those the sender may reach. */
  readonly emails: ReadonlySet<string>
  readonly reachable: ReadonlySet<string>
  /** What the broadcast's counts must say of the rest. */
  readonly skipReasons: Readonly<Record<string, number>>
}

/**
 * `n` contacts tagged `tag`, inserted as the guest actor stores them: of every ten, one without marketing consent, one
 * whose address is suppressed (a hard bounce), one without an email; the other seven reachable. Through the API 10,000
 * contacts take minutes; the test is about the broadcast, not ingestion.
 */
export const fillAudience = async (sql: postgres.Sql, tenant: TestTenant, tag: string, n: number): Promise<Audience> => {
  const rows = await sql<Array<{ id: string; email: string | null; i: number }>>`
    INSERT INTO contacts (id, tenant_id, sandbox, email, first_name, last_name, language, tags, email_consent, source, created_at, updated_at)
    SELECT gen_random_uuid(), ${tenant.tenant_id}, false, CASE WHEN i % 10 <> 2 THEN ${tag} || '-' || i || '@guests.example' END,
      'Guest', 'N' || i, 'es', ARRAY[${tag}], i % 10 <> 0, 'chaos', now(), now()
    FROM generate_series(0, ${n - 1}) i
    RETURNING id::text AS id, email, (split_part(last_name, 'N', 2))::int AS i`
  const suppressed = rows.filter((r) => r.i % 10 === 1).map((r) => r.email!)
  await sql`INSERT INTO suppressions (tenant_id, sandbox, channel, address, reason)
    SELECT ${tenant.tenant_id}, false, 'email', a, 'hard_bounce' FROM unnest(${suppressed}::text[]) a`
  const count = (k: number) => rows.filter((r) => r.i % 10 === k).length
  return {
    ordered: rows.map((r) => r.id).sort(),
    emails: new Set(rows.flatMap((r) => (r.email === null ? [] : [r.email]))),
    reachable: new Set(rows.filter((r) => r.i % 10 > 2).map((r) => r.email!)),
    skipReasons: { no_consent: count(0), suppressed: count(1), no_email: count(2) }
  }
}

/**
 * Holds the snapshot at one audience contact: a transaction of the test's own inserts that contact's recipient row
 * and stays open, so the snapshot's chunk that reaches it waits inside its own transaction (the primary key's
 * uniqueness check waits for ours). `blocked` resolves once a backend waits on it; `release` rolls ours back.
 */
export const holdSnapshotAt = async (sql: postgres.Sql, tenant: TestTenant, broadcastId: string, contactId: string) => {
  const conn = await sql.reserve()
  await conn`BEGIN`
  // The foreign key's check would share-lock the broadcast row, which every step of the broadcast actor locks first:
  // the hold would stop the actor before its snapshot, not inside it. Replica mode skips that check for this
  // transaction only (the broadcast exists); the primary key's uniqueness, which the snapshot waits on, still holds.
  await conn`SET LOCAL session_replication_role = replica`
  const pid = (await conn<Array<{ pid: number }>>`SELECT pg_backend_pid() AS pid`)[0]!.pid
  await conn`INSERT INTO broadcast_recipients (broadcast_id, contact_id, tenant_id, sandbox, status)
    VALUES (${broadcastId}, ${contactId}, ${tenant.tenant_id}, false, 'pending')`
  let released = false
  return {
    blocked: () => eventually("the snapshot waiting on the held row", async () => {
      const [row] = await sql<Array<{ n: number }>>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE ${pid}::int = ANY(pg_blocking_pids(pid))`
      return row!.n > 0 ? true : undefined
    }, 60_000),
    release: async () => {
      if (released) return
      released = true
      await conn`ROLLBACK`
      conn.release()
    }
  }
}

export const phaseOf = async (sql: postgres.Sql, id: string) =>
  (await sql<Array<{ phase: string | null }>>`SELECT phase FROM broadcasts WHERE id = ${id}`)[0]!.phase

export const recipientsByStatus = async (sql: postgres.Sql, id: string): Promise<Record<string, number>> =>
  Object.fromEntries((await sql<Array<{ status: string; n: number }>>`
    SELECT status, count(*)::int AS n FROM broadcast_recipients WHERE broadcast_id = ${id} GROUP BY status`).map((r) => [r.status, r.n]))

/** Where a broadcast that did not finish stands: its row, its recipients, and their messages by status and attempts. */
export const stateOf = async (sql: postgres.Sql, id: string) => ({
  broadcast: (await sql`SELECT status, phase, step_seq, step_published, next_step_at, now() AS now FROM broadcasts WHERE id = ${id}`)[0],
  recipients: await recipientsByStatus(sql, id),
  messages: await sql`SELECT m.status, m.attempts, (m.attempt_started_at IS NOT NULL) AS open, count(*)::int AS n
    FROM broadcast_recipients r LEFT JOIN messages m ON m.id = r.message_id
    WHERE r.broadcast_id = ${id} AND r.status = 'queued' GROUP BY 1, 2, 3`
})
