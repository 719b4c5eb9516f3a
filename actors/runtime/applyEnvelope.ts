import { actAsTenant, runTransaction, type Sql } from "../../core/db/Database.ts"
import { decode, encode, type Envelope } from "../../streams/envelope.ts"
import { checkFence, type Fence } from "./leases.ts"
import type { ActorContext, ActorHandler, Applied, OutboxMessage } from "./types.ts"

export interface Outcome {
  readonly reply: Applied["reply"]
  /** Outbox rows written by this application (empty for a redelivery, which changed nothing). */
  readonly outbox: ReadonlyArray<OutboxMessage>
  readonly duplicate: boolean
}

/**
 * Applies one envelope exactly once: inbox row + state change + outbox rows in one transaction.
 * A redelivered envelope finds its inbox row and gets the stored reply without touching state.
 */
export const applyEnvelope = (sql: Sql, handler: ActorHandler, envelope: Envelope, ctx: ActorContext, fence?: Fence): Promise<Outcome> =>
  runTransaction(sql, async (tx) => {
    // Pipelined: the role switch runs first, so the inbox lookup and everything after it is tenant-confined.
    const [, seen] = await Promise.all([
      actAsTenant(tx, envelope.tenant_id),
      tx`SELECT reply FROM inbox WHERE envelope_id = ${envelope.id}`
    ])
    if (seen.length > 0) {
      return { reply: decode<Applied["reply"]>(seen[0]!.reply as Uint8Array), outbox: [], duplicate: true }
    }
    const applied = await handler.apply(tx, envelope, ctx)
    const rows = applied.outbox.map((m) => ({
      id: m.id,
      tenant_id: envelope.tenant_id,
      subject: m.subject,
      payload: Buffer.from(encode(m.payload))
    }))
    // Sent together (one round trip). The fence check is last in the transaction: the share lock on the lease row
    // is held only for the commit itself, so rows waited on above never delay renewals; a takeover still waits for
    // this commit or makes it fail.
    await Promise.all([
      tx`
        INSERT INTO inbox (envelope_id, tenant_id, actor, actor_key, reply, owner, epoch)
        VALUES (${envelope.id}, ${envelope.tenant_id}, ${envelope.actor}, ${envelope.key}, ${Buffer.from(encode(applied.reply))},
          ${fence?.owner ?? null}, ${fence?.epoch ?? null})`,
      rows.length > 0 ? tx`INSERT INTO outbox ${tx(rows, "id", "tenant_id", "subject", "payload")}` : undefined,
      fence !== undefined ? checkFence(tx, fence) : undefined
    ])
    return { reply: applied.reply, outbox: applied.outbox, duplicate: false }
  })

export { isInfrastructureFailure } from "../../core/db/Database.ts"
