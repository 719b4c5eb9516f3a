import type { WebhookCommand } from "../../actors/webhook/protocol.ts"
import type { Tx } from "../../core/db/Database.ts"
import { deterministicId } from "../../core/deterministicId.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import { assignSequences } from "../../core/webhook/sequence.ts"
import { encode } from "../../streams/envelope.ts"
import { outboxSubject } from "../../streams/subjects.ts"

/**
 * The event id of one contact's `contact.deleted` in one privacy request: the same whenever the erasure's last step
 * runs again (resumed after a crash), so it is the same outbox row, the same Nats-Msg-Id and the same event a receiver
 * deduplicates on, never a second one.
 */
export const contactDeletedEventId = (requestId: string, contactId: string): string =>
  deterministicId(`privacy:${requestId}:contact.deleted:${contactId.toLowerCase()}`)

/** A command written to the outbox: what to publish after the commit (Nats-Msg-Id = `id`). */
export interface WrittenCommand {
  readonly id: string
  readonly subject: string
  readonly data: Uint8Array
}

/**
 * Writes one `contact.deleted` webhook command per erased contact (each once; its id and nothing else of the guest)
 * as an outbox row in `tx`, a transaction of the tenant (withTenant): the privacy runner's, which records its step
 * done in the same commit. A command already written is not written again: its row still waiting in the outbox, or
 * already fanned out (the event on record in webhook_events). So a resumed erasure sends no second event; were one
 * ever fanned out again, it would carry the same event id, on which receivers deduplicate.
 *
 * Returns the commands written now. Publish them after the commit as WebhookSends does (publish with `msgID: id`, then
 * delete the row), or leave them to the worker relay's sweep, which publishes rows older than its grace (seconds).
 */
export const writeContactDeleted = async (
  tx: Tx,
  namespace: string,
  scope: TenantScope,
  contactIds: ReadonlyArray<string>,
  requestId: string,
  occurredAt: Date
): Promise<Array<WrittenCommand>> => {
  const ids = new Map([...new Set(contactIds.map((c) => c.toLowerCase()))].map((c) => [contactDeletedEventId(requestId, c), c]))
  if (ids.size === 0) return []
  const known = new Set((await tx<Array<{ id: string }>>`
    SELECT id::text AS id FROM outbox WHERE id = ANY(${[...ids.keys()]}::uuid[])
    UNION SELECT event_id AS id FROM webhook_events WHERE event_id = ANY(${[...ids.keys()]}::text[])`).map((r) => r.id))
  const commands = [...ids].filter(([id]) => !known.has(id)).map(([id, contactId]) => ({
    id,
    command: {
      tenant_id: scope.tenant_id, sandbox: scope.sandbox, occurred_at: occurredAt.toISOString(),
      event_type: "contact.deleted", data: { contact: { id: contactId } }
    } satisfies WebhookCommand
  }))
  if (commands.length === 0) return []
  // Each event's sequence per contact, as every other webhook event gets in the transaction that writes it.
  const sequences = await assignSequences(tx, commands.map((c) => c.command))
  const subject = outboxSubject(namespace, "cmd", "webhook.contact.deleted")
  const written = commands.map((c, i) => ({ id: c.id, subject, data: encode({ ...c.command, sequence: sequences[i] }) }))
  await tx`INSERT INTO outbox ${tx(written.map((w) => ({ id: w.id, tenant_id: scope.tenant_id, subject: w.subject, payload: Buffer.from(w.data) })), "id", "tenant_id", "subject", "payload")}`
  return written
}
