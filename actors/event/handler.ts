import type { Tx } from "../../core/db/Database.ts"
import { jsonb } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { Envelope } from "../../streams/envelope.ts"
import { outboxSubject } from "../../streams/subjects.ts"
import { defineActor, type ActorContext, type Applied } from "../runtime/types.ts"
import type { RecordEvent } from "./command.ts"

const answer = (status: number, row: Record<string, unknown>, matching: number, replay: boolean): Applied["reply"] => ({
  status,
  body: {
    success: true,
    data: {
      event_id: row.id,
      status: "accepted",
      event_type: row.type,
      contact_id: row.contact_id ?? null,
      hotel_id: row.hotel_id ?? null,
      matching_journeys: matching,
      created_at: (row.created_at as Date).toISOString(),
      idempotent_replay: replay,
      message: replay ? "Event already recorded with this idempotency_key; the original is returned" : "Event accepted"
    }
  }
})

const matchingJourneys = async (tx: Tx, scope: TenantScope, type: string, hotelId: string | null) => {
  const [row] = await tx`
    SELECT count(*)::int AS n FROM journey_definitions
    WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox} AND active AND trigger_event_type = ${type}
      AND (hotel_id IS NULL OR hotel_id = ${hotelId})`
  return row!.n as number
}

const contactFor = async (tx: Tx, scope: TenantScope, cmd: RecordEvent): Promise<string | null | "unknown"> => {
  if (cmd.contact_id !== undefined) {
    const rows = await tx`SELECT id FROM contacts WHERE id = ${cmd.contact_id} AND tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox}`
    return rows.length > 0 ? cmd.contact_id : "unknown"
  }
  if (cmd.guest_phone === undefined) return null
  const rows = await tx`SELECT id FROM contacts WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox} AND phone = ${cmd.guest_phone}`
  return (rows[0]?.id as string | undefined) ?? "unknown"
}

const record = async (tx: Tx, envelope: Envelope<RecordEvent>, ctx: ActorContext): Promise<Applied> => {
  const cmd = envelope.payload
  const scope: TenantScope = { tenant_id: envelope.tenant_id, sandbox: envelope.sandbox }
  if (cmd.idempotency_key !== undefined) {
    const [original] = await tx`
      SELECT id, type, contact_id, hotel_id, created_at FROM events
      WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox} AND idempotency_key = ${cmd.idempotency_key}`
    if (original) {
      const matching = await matchingJourneys(tx, scope, original.type as string, original.hotel_id as string | null)
      return { reply: answer(200, original, matching, true), outbox: [] }
    }
  }
  const contact = await contactFor(tx, scope, cmd)
  if (contact === "unknown") {
    const field = cmd.contact_id !== undefined ? "contact_id" : "guest_phone"
    return {
      reply: {
        status: 422,
        body: { success: false, error: { message: `No contact with this ${field} in this account`, code: "CONTACT_NOT_FOUND", details: { [field]: ["no such contact"] } } }
      },
      outbox: []
    }
  }
  const [row] = await tx`
    INSERT INTO events (id, tenant_id, sandbox, type, contact_id, hotel_id, source, payload, idempotency_key)
    VALUES (${cmd.event_id}, ${scope.tenant_id}, ${scope.sandbox}, ${cmd.event_type}, ${contact}, ${cmd.hotel_id ?? null},
      ${cmd.source}, ${jsonb(tx, cmd.payload)}::jsonb, ${cmd.idempotency_key ?? null})
    RETURNING id, type, contact_id, hotel_id, created_at`
  const matching = await matchingJourneys(tx, scope, cmd.event_type, cmd.hotel_id ?? null)
  return {
    reply: answer(201, row!, matching, false),
    outbox: [{
      id: cmd.event_id,
      subject: outboxSubject(ctx.namespace, "evt", cmd.event_type),
      payload: {
        tenant_id: scope.tenant_id, sandbox: scope.sandbox, occurred_at: (row!.created_at as Date).toISOString(),
        event_id: cmd.event_id, event_type: cmd.event_type, contact_id: contact, hotel_id: cmd.hotel_id ?? null, data: cmd.payload
      }
    }]
  }
}

export const EventActor = defineActor("event", { "event.record": record })
