import type { JsMsg } from "@nats-io/jetstream"
import type { Sql } from "../../core/db/Database.ts"
import { log } from "../../core/observability/log.ts"

export interface DeadLetter {
  /** The envelope id, or `seq-<stream sequence>` for bytes that are no envelope at all. */
  readonly envelopeId: string
  readonly tenantId: string | null
  readonly actor: string
  readonly error: string
  readonly attempts: number
}

/** Keeps a message that could not be applied whole, for an operator (once: a repeat changes nothing). */
export const recordDeadLetter = async (sql: Sql, msg: JsMsg, d: DeadLetter): Promise<void> => {
  await sql`
    INSERT INTO dead_letters (envelope_id, tenant_id, actor, subject, payload, error, attempts)
    VALUES (${d.envelopeId}, ${d.tenantId}, ${d.actor}, ${msg.subject}, ${Buffer.from(msg.data)}, ${d.error}, ${d.attempts})
    ON CONFLICT (envelope_id) DO NOTHING`
  log("error", "dead-lettered", { envelope_id: d.envelopeId, tenant_id: d.tenantId ?? undefined, error: d.error })
}
