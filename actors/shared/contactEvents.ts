import { randomUUID } from "node:crypto"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { OutboxMessage } from "../runtime/Actor.ts"
import type { ContactSummary, ResolvedContact } from "./identity.ts"
import { WebhookCommands } from "../../streams/topics.ts"

export interface OutboxMeta extends TenantScope {
  readonly occurred_at: string
}

/** One `contact.created` / `contact.updated` webhook command per contact that changed (each contact once). */
export const contactChangeCommands = (
  subject: (kind: "cmd", name: string) => string,
  meta: OutboxMeta,
  resolved: ReadonlyArray<ResolvedContact | null>,
  summaries: ReadonlyMap<string, ContactSummary>,
  hotelId: string | null
): Array<OutboxMessage> => {
  const seen = new Set<string>()
  const out: Array<OutboxMessage> = []
  for (const r of resolved) {
    if (!r || !r.changed || seen.has(r.contact_id)) continue
    seen.add(r.contact_id)
    const type = r.is_new ? "contact.created" : "contact.updated"
    out.push(WebhookCommands.message(randomUUID(), subject("cmd", `webhook.${type}`), {
      ...meta, event_type: type, data: { contact: { ...summaries.get(r.contact_id), hotel_id: hotelId } }
    }))
  }
  return out
}
