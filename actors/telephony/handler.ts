import { randomUUID } from "node:crypto"
import type { Tx } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { Envelope } from "../../streams/envelope.ts"
import { outboxSubject } from "../../streams/subjects.ts"
import { defineActor, type ActorContext, type Applied, type OutboxMessage } from "../runtime/types.ts"
import { contactChangeCommands } from "../shared/contactEvents.ts"
import { loadContactSummaries, resolveContacts } from "../shared/identity.ts"
import type { CallCommand } from "./command.ts"
import { fillBlankContactFields, findCallForUpdate, logCallEvent, saveCall } from "./repository.ts"
import { mergeCall, transcriptArrived } from "./state.ts"

/** Applies a streamed event or a completed-call record to the call, keyed by tenant + provider + call_id. */
const record = async (tx: Tx, envelope: Envelope<CallCommand>, ctx: ActorContext): Promise<Applied> => {
  const cmd = envelope.payload
  const scope: TenantScope = { tenant_id: envelope.tenant_id, sandbox: envelope.sandbox }
  const existing = await findCallForUpdate(tx, scope.tenant_id, cmd.provider, cmd.call_id)
  const now = new Date().toISOString()
  let call = mergeCall(existing, randomUUID(), cmd.facts, now)

  // The guest's side, once the direction is known, resolves to (or creates) a contact by phone.
  const guestNumber = call.direction === "inbound" ? call.from_number : call.direction === "outbound" ? call.to_number : null
  const outbox: Array<OutboxMessage> = []
  let contact: { id: string; is_new: boolean } | null = null
  if (guestNumber?.startsWith("+") && cmd.kind === "event") {
    // A streamed event links the call to a known guest; only a completed-call record creates one.
    const [known] = await tx`SELECT id FROM contacts WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox} AND phone = ${guestNumber}`
    if (known) call = { ...call, contact_id: known.id as string }
  } else if (guestNumber?.startsWith("+")) {
    const [r] = await resolveContacts(tx, scope, [{ phone: guestNumber }], { source: `telephony:${cmd.provider}`, envelopeId: envelope.id, updateIfExists: false })
    const filled = cmd.facts.caller ? await fillBlankContactFields(tx, scope, r!.contact_id, cmd.facts.caller) : false
    contact = { id: r!.contact_id, is_new: r!.is_new }
    call = { ...call, contact_id: r!.contact_id }
    const summaries = await loadContactSummaries(tx, [r!.contact_id])
    const meta = { tenant_id: scope.tenant_id, sandbox: scope.sandbox, occurred_at: now }
    outbox.push(...contactChangeCommands(ctx.namespace, meta, [{ ...r!, changed: r!.is_new || filled }], summaries, null))
  }
  await saveCall(tx, scope, cmd.provider, cmd.call_id, call)
  if (cmd.kind === "event") await logCallEvent(tx, scope.tenant_id, cmd.provider, cmd.call_id, cmd.event_type!, cmd.raw ?? {}, envelope.id)
  if (transcriptArrived(existing, call)) {
    outbox.push({
      id: randomUUID(),
      subject: outboxSubject(ctx.namespace, "cmd", "call.transcript_received"),
      payload: {
        tenant_id: scope.tenant_id, sandbox: scope.sandbox, occurred_at: now, event_type: "call.transcript_received",
        data: { call_record_id: call.id, provider: cmd.provider, call_id: cmd.call_id, contact_id: call.contact_id, language: call.language }
      }
    })
  }
  return {
    reply: {
      status: existing ? 200 : 201,
      body: {
        success: true,
        data: {
          call_id: cmd.call_id,
          call_record_id: call.id,
          kind: cmd.kind,
          event_type: cmd.event_type ?? "call_completed",
          status: call.status,
          contact_id: call.contact_id,
          is_new_contact: contact?.is_new ?? false,
          warnings: cmd.warnings
        }
      }
    },
    outbox
  }
}

export const TelephonyActor = defineActor("telephony", { "telephony.record": record })
