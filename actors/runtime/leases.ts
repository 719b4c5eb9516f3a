import { Effect } from "effect"
import type { Sql, Tx } from "../../core/db/Database.ts"
import { errorText, log } from "../../core/observability/log.ts"
import { isLockTimeout } from "../../core/db/DatabaseFailure.ts"
import { applicationNameOf } from "../../core/processIdentity.ts"

export interface Fence {
  readonly namespace: string
  readonly actor: string
  readonly partition: number
  readonly owner: string
  readonly epoch: number
}

/** Leases no longer this owner's at these epochs: whatever this transaction did must not commit. */
export class LeaseLost extends Error {
  readonly lost: ReadonlyArray<Fence>
  constructor(lost: ReadonlyArray<Fence>) {
    super(`leases lost: ${lost.map((f) => `${f.actor}/${f.partition} (owner ${f.owner}, epoch ${f.epoch})`).join(", ")}`)
    this.name = "LeaseLost"
    this.lost = lost
  }
}

export const heartbeat = async (sql: Sql, namespace: string, workerId: string): Promise<void> => {
  await sql`
    INSERT INTO worker_heartbeats (namespace, worker_id) VALUES (${namespace}, ${workerId})
    ON CONFLICT (namespace, worker_id) DO UPDATE SET heartbeat_at = now()`
}

export const liveWorkers = async (sql: Sql, namespace: string, ttlMs: number): Promise<Array<string>> =>
  (await sql`
    SELECT worker_id FROM worker_heartbeats
    WHERE namespace = ${namespace} AND heartbeat_at > now() - make_interval(secs => ${ttlMs / 1000})
    ORDER BY worker_id`).map((r) => r.worker_id as string)

export const leave = async (sql: Sql, namespace: string, workerId: string): Promise<void> => {
  await sql`DELETE FROM worker_heartbeats WHERE namespace = ${namespace} AND worker_id = ${workerId}`
}

/**
 * Lease statements wait at most this long for a row lock: a lease row is share-locked by the owner's in-flight
 * transactions, and a frozen owner's are ended by the server only after idle_in_transaction_session_timeout. The
 * ownership loop tries again on its next tick instead of hanging on one partition.
 */
const withLockTimeout = <A>(sql: Sql, f: (tx: Tx) => Promise<A>): Promise<A> =>
  sql.begin(async (tx) => {
    await tx`SET LOCAL lock_timeout = '1s'`
    return f(tx)
  }) as Promise<A>

/** Takes the lease when it is free, expired, or already ours: a new epoch either way. */
export const acquire = async (sql: Sql, namespace: string, actor: string, partition: number, owner: string, ttlMs: number): Promise<Fence | undefined> => {
  await sql`INSERT INTO partition_leases (namespace, actor, partition) VALUES (${namespace}, ${actor}, ${partition}) ON CONFLICT DO NOTHING`
  const [row] = await withLockTimeout(sql, (tx) => tx`
    UPDATE partition_leases SET owner = ${owner}, epoch = epoch + 1, expires_at = now() + make_interval(secs => ${ttlMs / 1000})
    WHERE namespace = ${namespace} AND actor = ${actor} AND partition = ${partition}
      AND (owner IS NULL OR owner = ${owner} OR expires_at < now())
    RETURNING epoch`).catch((e) => {
    if (isLockTimeout(e)) return []
    throw e
  })
  return row ? { namespace, actor, partition, owner, epoch: Number(row.epoch) } : undefined
}

/**
 * Another owner holding the lease past its expiry (frozen, cut off or dead; it never released it), read without
 * waiting for any lock: its open transactions may hold the lease row itself.
 */
export const expiredHolder = async (sql: Sql, namespace: string, actor: string, partition: number, me: string): Promise<string | undefined> => {
  const [row] = await sql`
    SELECT owner FROM partition_leases
    WHERE namespace = ${namespace} AND actor = ${actor} AND partition = ${partition}
      AND owner IS NOT NULL AND owner <> ${me} AND expires_at < now()`
  return row?.owner as string | undefined
}

/**
 * Ends the open transactions of a former owner whose lease expired under it. Fencing already makes their commits
 * fail (the fence check wants an unexpired lease), but until they end they hold their locks, the lease row's
 * included: PostgreSQL ends a session idle in a transaction after 5 s, never one a pause caught mid-statement (waiting
 * for the rest of a query, or for its client to read), which would block the new owner (its lease, its writes to the
 * same rows) for as long as the pause lasts. Returns how many were ended.
 */
export const fenceOut = async (sql: Sql, formerOwner: string): Promise<number> => {
  const rows = await sql`
    SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity
    WHERE application_name = ${applicationNameOf(formerOwner)} AND xact_start IS NOT NULL AND pid <> pg_backend_pid()`
  return rows.filter((r) => r.ended === true).length
}

/** `fenceOut` for a taking worker: logged, never failing (the takeover goes on either way). */
export const endFormerOwner = (sql: Sql, formerOwner: string, workerId: string): Effect.Effect<void> =>
  Effect.tryPromise(() => fenceOut(sql, formerOwner)).pipe(
    Effect.map((ended) => {
      if (ended > 0) log("warn", "ended the open transactions of a former owner whose lease expired", { former_owner: formerOwner, sessions: ended, worker_id: workerId })
    }),
    // Not allowed (another role), or the database is away: its sessions end with the pause, or by the server's timeouts.
    Effect.catch((e) => Effect.sync(() => log("warn", "could not end a former owner's transactions", { former_owner: formerOwner, error: errorText(e.cause) })))
  )

/** Extends every lease this owner holds at its epoch; returns the ones still held. */
export const renew = async (sql: Sql, fences: ReadonlyArray<Fence>, ttlMs: number): Promise<Set<string>> => {
  if (fences.length === 0) return new Set()
  const rows = await withLockTimeout(sql, (tx) => tx`
    UPDATE partition_leases l SET expires_at = now() + make_interval(secs => ${ttlMs / 1000})
    FROM (SELECT * FROM unnest(${fences.map((f) => f.actor)}::text[], ${fences.map((f) => f.partition)}::int[],
      ${fences.map((f) => f.epoch)}::bigint[]) AS x(actor, partition, epoch)) x
    WHERE l.namespace = ${fences[0]!.namespace} AND l.actor = x.actor AND l.partition = x.partition
      AND l.epoch = x.epoch AND l.owner = ${fences[0]!.owner} AND l.expires_at > now()
    RETURNING l.actor, l.partition`)
  return new Set(rows.map((r) => `${r.actor}/${r.partition}`))
}

export const release = async (sql: Sql, fence: Fence): Promise<void> => {
  await sql`
    UPDATE partition_leases SET owner = NULL, expires_at = '-infinity'
    WHERE namespace = ${fence.namespace} AND actor = ${fence.actor} AND partition = ${fence.partition}
      AND owner = ${fence.owner} AND epoch = ${fence.epoch}`
}

/**
 * Inside the state transaction: every lease a group's envelopes came under must still be this owner's at its epoch,
 * checked in one statement. FOR SHARE makes a concurrent takeover wait for this transaction, so a commit and a
 * takeover are ordered, never interleaved.
 */
export const checkFences = async (tx: Tx, fences: ReadonlyArray<Fence>): Promise<void> => {
  if (fences.length === 0) return
  const { namespace, actor, owner } = fences[0]!
  const rows = await tx`
    SELECT partition FROM partition_leases
    WHERE namespace = ${namespace} AND actor = ${actor} AND owner = ${owner} AND expires_at > now()
      AND (partition, epoch) IN (SELECT * FROM unnest(${fences.map((f) => f.partition)}::int[], ${fences.map((f) => f.epoch)}::bigint[]))
    FOR SHARE`
  const held = new Set(rows.map((r) => r.partition as number))
  const lost = fences.filter((f) => !held.has(f.partition))
  if (lost.length > 0) throw new LeaseLost(lost)
}
