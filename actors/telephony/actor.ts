import { DateTime, Effect } from "effect"
import { randomUUID } from "node:crypto"
import * as Actor from "../runtime/Actor.ts"
import { contactChangeCommands } from "../shared/contactEvents.ts"
import { loadContactSummaries, resolveContacts } from "../shared/identity.ts"
import { type CallCommand, type CallResult, TelephonyProtocol } from "./protocol.ts"
import { fillBlankContactFields, findCallForUpdate, logCallEvent, saveCall } from "./repository.ts"
import { mergeCall, transcriptArrived } from "./state.ts"

/** Applies a streamed event or a completed-call record to the call, keyed by tenant + provider + call_id. */
const record = Effect.fn("TelephonyActor.record")(function*(cmd: CallCommand) {
  const { scope, subject } = yield* Effect.service(Actor.GroupTransaction)
  const { envelopeId } = yield* Effect.service(Actor.ActorTransaction)
  const existing = yield* Actor.query((tx) => findCallForUpdate(tx, scope.tenant_id, cmd.provider, cmd.call_id))
  const now = (yield* DateTime.nowAsDate).toISOString()
  let call = mergeCall(existing, randomUUID(), cmd.facts, now)

  // The guest's side, once the direction is known, resolves to (or creates) a contact by phone.
  const guestNumber = call.direction === "inbound" ? call.from_number : call.direction === "outbound" ? call.to_number : null
  let contact: { id: string; is_new: boolean } | null = null
  if (guestNumber?.startsWith("+") && cmd.kind === "event") {
    // A streamed event links the call to a known guest; only a completed-call record creates one.
    const [known] = yield* Actor.query((tx) =>
      tx`SELECT id FROM contacts WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox} AND phone = ${guestNumber}`)
    if (known) call = { ...call, contact_id: known.id as string }
  } else if (guestNumber?.startsWith("+")) {
    const [resolved] = yield* Actor.query((tx) =>
      resolveContacts(tx, scope, [{ phone: guestNumber }], { source: `telephony:${cmd.provider}`, envelopeId, updateIfExists: false }))
    const r = resolved!
    const caller = cmd.facts.caller
    const filled = caller ? yield* Actor.query((tx) => fillBlankContactFields(tx, scope, r.contact_id, caller)) : false
    contact = { id: r.contact_id, is_new: r.is_new }
    call = { ...call, contact_id: r.contact_id }
    const summaries = yield* Actor.query((tx) => loadContactSummaries(tx, [r.contact_id]))
    yield* Actor.emit(contactChangeCommands(subject, { ...scope, occurred_at: now }, [{ ...r, changed: r.is_new || filled }], summaries, null))
  }
  const saved = call
  yield* Actor.query((tx) => Promise.all([
    saveCall(tx, scope, cmd.provider, cmd.call_id, saved),
    cmd.kind === "event" ? logCallEvent(tx, scope.tenant_id, cmd.provider, cmd.call_id, cmd.event_type!, cmd.raw ?? {}, envelopeId) : undefined
  ]))
  if (transcriptArrived(existing, call)) {
    yield* Actor.emit([{
      id: randomUUID(),
      subject: subject("cmd", "call.transcript_received"),
      payload: {
        ...scope, occurred_at: now, event_type: "call.transcript_received",
        data: { call_record_id: call.id, provider: cmd.provider, call_id: cmd.call_id, contact_id: call.contact_id, language: call.language }
      }
    }])
  }
  return {
    call_id: cmd.call_id,
    call_record_id: call.id,
    kind: cmd.kind,
    event_type: cmd.event_type ?? "call_completed",
    status: call.status,
    contact_id: call.contact_id,
    is_new_contact: contact?.is_new ?? false,
    is_new: existing === undefined,
    warnings: cmd.warnings
  } satisfies CallResult
})

export const TelephonyActor = Actor.make(TelephonyProtocol, { record })
