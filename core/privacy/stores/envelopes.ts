import type { PrivacyStore } from "../store.ts"
import { erasedAnswer, readBatch, textOf, writeBatch } from "./encoded.ts"
import { copyNeedlesOf } from "./members.ts"
import { hasWords, namesSubject } from "./needles.ts"
import { counted, tagged } from "./rows.ts"

// The platform's own copies of envelopes and answers, kept msgpack-encoded: found by the subject's ids (contacts,
// loyalty members: the loyalty actor's key) and identifiers in their bytes (strings are stored as UTF-8 inside msgpack, so `encode(bytes, 'escape') ILIKE` finds an ASCII email,
// number or id), read back decoded where a row must be taken apart. They carry no sandbox flag: scoped by tenant.
// An erasure runs after the drain (everything published before the suppression consumed), so little is left here.

/**
 * Outbox rows not yet published: a row whose messages all name the subject goes; a batch row carrying other contacts'
 * messages too is written back without the subject's (each message keeps its id, so a relay that already published it
 * is deduplicated by the stream as before).
 */
export const outboxStore: PrivacyStore = {
  store: "outbox",
  action: "deleted",
  tables: ["outbox"],
  holds: "events and commands not yet published (contact data, message content, webhook bodies)",
  retention: "until published: the relay deletes a row once its messages are on the stream (migration 032)",
  erase: async (tx, subject, limit) => {
    const n = await copyNeedlesOf(tx, subject)
    if (!hasWords(n)) return 0
    const rows = await tx`
      SELECT id, payload, batch FROM outbox
      WHERE tenant_id = ${subject.scope.tenant_id} AND published_at IS NULL AND encode(payload, 'escape') ILIKE ANY(${n.patterns}::text[])
      ORDER BY created_at FOR UPDATE`
    let changed = 0
    for (const row of rows) {
      if (changed >= limit) break
      const messages = row.batch ? readBatch(row.payload as Uint8Array) : undefined
      const kept = messages?.filter((m) => !namesSubject(n, `${m.id}\n${m.subject}\n${textOf(m.data)}`))
      if (kept !== undefined && kept.length > 0 && kept.length < messages!.length) {
        await tx`UPDATE outbox SET payload = ${writeBatch(kept)} WHERE id = ${row.id}`
      } else {
        await tx`DELETE FROM outbox WHERE id = ${row.id}`
      }
      changed++
    }
    return changed
  },
  export: async (tx, subject) => {
    const n = await copyNeedlesOf(tx, subject)
    if (!hasWords(n)) return []
    const rows = await tx`
      SELECT id, subject, payload, batch, created_at FROM outbox
      WHERE tenant_id = ${subject.scope.tenant_id} AND published_at IS NULL AND encode(payload, 'escape') ILIKE ANY(${n.patterns}::text[])`
    // What is pending about the subject (which message, where to), not the copies' bytes: their content is in the stores.
    return rows.flatMap((r) => {
      const messages = r.batch ? readBatch(r.payload as Uint8Array) ?? [] : [{ id: r.id as string, subject: r.subject as string, data: r.payload as Uint8Array }]
      return messages.filter((m) => namesSubject(n, textOf(m.data)))
        .map((m) => ({ table: "outbox", message_id: m.id, subject: m.subject, created_at: (r.created_at as Date).toISOString() }))
    })
  }
}

/**
 * An inbox row answers a redelivered envelope: removing it would let a late copy of the envelope apply again and
 * re-create the subject. The row stays (its envelope id keeps the redelivery a no-op) with its answer replaced by one
 * that says it was erased, and its actor key (a guest's is the phone or email) blanked.
 */
export const inboxStore: PrivacyStore = {
  store: "inbox",
  action: "anonymised",
  tables: ["inbox"],
  holds: "each applied envelope's answer (contact ids, contact details, reservation results) and actor key (a guest's phone or email)",
  retention: "while the envelope can still arrive again, then swept (actors/runtime/inboxRetention.ts: GEP_INBOX_RETENTION_MS and the deployments' floors)",
  erase: async (tx, subject, limit) => {
    const n = await copyNeedlesOf(tx, subject)
    if (!hasWords(n)) return 0
    return counted(tx`
      UPDATE inbox SET actor_key = 'erased', reply = ${erasedAnswer()}
      WHERE envelope_id IN (
        SELECT envelope_id FROM inbox WHERE tenant_id = ${subject.scope.tenant_id} AND actor_key <> 'erased'
          AND (actor_key ILIKE ANY(${n.patterns}::text[]) OR encode(reply, 'escape') ILIKE ANY(${n.patterns}::text[]))
        LIMIT ${limit})`)
  },
  export: async (tx, subject) => {
    const n = await copyNeedlesOf(tx, subject)
    if (!hasWords(n)) return []
    return tagged("inbox", await tx`
      SELECT jsonb_build_object('envelope_id', envelope_id, 'actor', actor, 'processed_at', processed_at) AS row FROM inbox
      WHERE tenant_id = ${subject.scope.tenant_id} AND actor_key <> 'erased'
        AND (actor_key ILIKE ANY(${n.patterns}::text[]) OR encode(reply, 'escape') ILIKE ANY(${n.patterns}::text[]))
      ORDER BY processed_at`)
  }
}

/** Envelopes that failed every retry, kept whole for an operator: one naming the subject goes. */
export const deadLettersStore: PrivacyStore = {
  store: "dead_letters",
  action: "deleted",
  tables: ["dead_letters"],
  holds: "whole envelopes that could not be applied (their payload: reservations, guests, events)",
  retention: "kept until an operator resolves them (no expiry): removed by an erasure",
  erase: async (tx, subject, limit) => {
    const n = await copyNeedlesOf(tx, subject)
    if (!hasWords(n)) return 0
    return counted(tx`DELETE FROM dead_letters WHERE envelope_id IN (
      SELECT envelope_id FROM dead_letters WHERE tenant_id = ${subject.scope.tenant_id}
        AND (encode(payload, 'escape') ILIKE ANY(${n.patterns}::text[]) OR error ILIKE ANY(${n.patterns}::text[]))
      LIMIT ${limit})`)
  },
  export: async (tx, subject) => {
    const n = await copyNeedlesOf(tx, subject)
    if (!hasWords(n)) return []
    return tagged("dead_letters", await tx`
      SELECT jsonb_build_object('envelope_id', envelope_id, 'actor', actor, 'failed_at', failed_at) AS row FROM dead_letters
      WHERE tenant_id = ${subject.scope.tenant_id} AND encode(payload, 'escape') ILIKE ANY(${n.patterns}::text[])
      ORDER BY failed_at`)
  }
}
