import type { Tx } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { Envelope } from "../../streams/envelope.ts"
import { defineActor, type ActorContext, type Applied } from "../runtime/types.ts"
import { contactChangeCommands } from "../shared/contactEvents.ts"
import { linkContactsToHotel, recordConsents } from "../shared/contacts.ts"
import { loadContactSummaries, resolveContacts } from "../shared/identity.ts"
import type { UpsertContact, UpsertContactReply } from "./command.ts"

const upsert = async (tx: Tx, envelope: Envelope<UpsertContact>, ctx: ActorContext): Promise<Applied> => {
  const cmd = envelope.payload
  const scope: TenantScope = { tenant_id: envelope.tenant_id, sandbox: envelope.sandbox }
  const [resolved] = await resolveContacts(tx, scope, [cmd.profile], {
    source: `guests:${cmd.source}`,
    envelopeId: envelope.id,
    updateIfExists: cmd.update_if_exists,
    fillOnly: cmd.fill_only,
    // The guests API's documented defaults, for a contact it creates.
    insertDefaults: { email_consent: false, whatsapp_marketing_consent: false }
  })
  const r = resolved!
  const applied = r.is_new || cmd.update_if_exists
  if (cmd.hotel_id && applied) await linkContactsToHotel(tx, scope, cmd.hotel_id, [r.contact_id])
  if (applied) {
    const p = cmd.profile
    await recordConsents(tx, scope, envelope.id, cmd.consent_source ?? `guests:${cmd.source}`, [
      ...(p.email_consent === undefined ? [] : [{ contact_id: r.contact_id, channel: "email" as const, granted: p.email_consent }]),
      ...(p.whatsapp_marketing_consent === undefined ? [] : [{ contact_id: r.contact_id, channel: "whatsapp" as const, granted: p.whatsapp_marketing_consent }])
    ], cmd.consent_timestamp)
  }
  const summaries = await loadContactSummaries(tx, [r.contact_id])
  const meta = { tenant_id: scope.tenant_id, sandbox: scope.sandbox, occurred_at: new Date().toISOString() }
  const reply: UpsertContactReply = { contact_id: r.contact_id, is_new: r.is_new, changed: r.changed, conflict_with: r.conflict_with ?? null }
  return {
    reply: { status: r.is_new ? 201 : 200, body: reply },
    outbox: contactChangeCommands(ctx.namespace, meta, [r], summaries, cmd.hotel_id ?? null)
  }
}

export const GuestActor = defineActor("guest", { "guest.upsert": upsert })
