import type postgres from "postgres"
import type { StoredMessage } from "../../actors/runtime/OutboxRelay.ts"
import { decode } from "../../streams/envelope.ts"

export interface OutboxEntry {
  readonly id: string
  readonly subject: string
  readonly payload: unknown
  readonly published_at: Date | null
}

/** Every message in a tenant's outbox, batch rows unpacked: what the relay publishes (one entry per Nats-Msg-Id). */
export const outboxMessages = async (sql: postgres.Sql, tenantId: string): Promise<Array<OutboxEntry>> => {
  const rows = await sql`SELECT id, subject, payload, batch, published_at FROM outbox WHERE tenant_id = ${tenantId} ORDER BY created_at`
  return rows.flatMap((r) =>
    r.batch
      ? decode<Array<StoredMessage>>(r.payload as Uint8Array).map((m) => ({
        id: m.id, subject: m.subject, payload: decode(m.data), published_at: r.published_at as Date | null
      }))
      : [{ id: r.id as string, subject: r.subject as string, payload: decode(r.payload as Uint8Array), published_at: r.published_at as Date | null }]
  )
}
