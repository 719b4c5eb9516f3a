import { jetstream, jetstreamManager } from "@nats-io/jetstream"
import { connect } from "@nats-io/transport-node"
import { setTimeout as sleep } from "node:timers/promises"
import postgres from "postgres"
import { inject } from "vitest"
import { decode } from "../../streams/envelope.ts"
import { outboxStream } from "../../streams/subjects.ts"
import { OutboxBatches } from "../../streams/topics.ts"

export interface OutboxEntry {
  readonly id: string
  readonly subject: string
  readonly payload: unknown
}

/**
 * Every message a deployment's outboxes published for one tenant, oldest first: read back from its outbox stream (the
 * relay deletes a row once its messages are published, so the stream, not the table, is the log), once the tenant's
 * outbox rows are all gone (published), or after 10 s. One entry per Nats-Msg-Id.
 */
export const outboxMessages = async (namespace: string, tenantId: string): Promise<Array<OutboxEntry>> => {
  await withSql(async (sql) => {
    for (let i = 0; i < 100 && (await unpublished(sql, tenantId)).length > 0; i++) await sleep(100)
  })
  return published(namespace, tenantId)
}

/** The ids of every message the tenant's outboxes wrote, published or not yet, without waiting. */
export const outboxMessageIds = async (namespace: string, tenantId: string): Promise<Set<string>> => {
  const waiting = await withSql((sql) => unpublished(sql, tenantId))
  return new Set([...waiting, ...(await published(namespace, tenantId)).map((m) => m.id)])
}

const withSql = async <A>(f: (sql: postgres.Sql) => Promise<A>): Promise<A> => {
  const sql = postgres(inject("databaseUrl"), { max: 1, onnotice: () => {} })
  try {
    return await f(sql)
  } finally {
    await sql.end()
  }
}

/** The ids of the messages in the tenant's outbox rows (batch rows unpacked): written, not yet published. */
const unpublished = async (sql: postgres.Sql, tenantId: string): Promise<Array<string>> => {
  const rows = await sql`SELECT id, payload, batch FROM outbox WHERE tenant_id = ${tenantId}`
  return rows.flatMap((r) => r.batch ? OutboxBatches.decode(r.payload as Uint8Array).map((m) => m.id) : [r.id as string])
}

const published = async (namespace: string, tenantId: string): Promise<Array<OutboxEntry>> => {
  const nc = await connect({ servers: inject("natsUrl").split(",") })
  try {
    const { state } = await (await jetstreamManager(nc)).streams.info(outboxStream(namespace))
    const entries: Array<OutboxEntry> = []
    if (state.messages === 0) return entries
    // The stream holds only outbox subjects (and NATS 2.9 here takes no filter list).
    const messages = await (await jetstream(nc).consumers.get(outboxStream(namespace))).consume()
    for await (const m of messages) {
      const payload = decode(m.data) as { readonly tenant_id?: string }
      if (payload.tenant_id === tenantId) entries.push({ id: m.headers?.get("Nats-Msg-Id") ?? "", subject: m.subject, payload })
      if (m.seq >= state.last_seq) break
    }
    return entries
  } finally {
    await nc.close()
  }
}
