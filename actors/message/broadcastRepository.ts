import type { Tx } from "../../core/db/Database.ts"
import type { CustomFieldDef } from "../../core/segment/catalog.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { MessageChannel } from "../../schemas/message.ts"

// The reads the message sender makes for a broadcast's message (broadcastSend.ts decides on them). All run in the
// group's transaction under the tenant's row-level security, tenant columns filtered explicitly as everywhere.

/** A broadcast as its sender sees it, with the recipient's zone and the tenant's frequency cap beside it. */
export interface BroadcastForSend {
  readonly status: string
  readonly channel: MessageChannel
  readonly category: "marketing" | "utility"
  /** The definition the audience resolved to when the snapshot started, and the exclusions' definitions (jsonb). */
  readonly definition: unknown
  readonly exclusions: unknown
  readonly send_deadline: Date | null
  readonly quiet_hours: { readonly from: string; readonly to: string } | null
  /** The recipient row's zone, else the broadcast hotel's; null for neither (UTC then). */
  readonly time_zone: string | null
  readonly marketing_cap_hours: number | null
}

/**
 * The marketing messages that count against the frequency cap: outbound to the contact on the channel, created from
 * `since` on, and on their way or arrived (a skipped or failed one never reached the guest). The message being
 * decided is left out (a retry of it must not cap itself). Served by `messages_contact (contact_id, created_at)`.
 */
export const recentMarketingCount = async (
  tx: Tx, scope: TenantScope, contactId: string, channel: MessageChannel, since: Date, excludeId: string
): Promise<number> => {
  const [row] = await tx<Array<{ n: number }>>`
    SELECT count(*)::int AS n FROM messages
    WHERE contact_id = ${contactId} AND tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox}
      AND created_at >= ${since} AND channel = ${channel} AND direction = 'outbound' AND category = 'marketing'
      AND status IN ('queued', 'sent', 'delivered', 'read') AND id <> ${excludeId}`
  return row!.n
}

/** The account's custom field definitions in this mode: what a definition's `custom.<key>` fields are. */
export const customFieldDefinitions = async (tx: Tx, scope: TenantScope): Promise<ReadonlyArray<CustomFieldDef>> =>
  (await tx`SELECT field_key, field_type, options FROM custom_field_definitions
    WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox}`) as unknown as ReadonlyArray<CustomFieldDef>
