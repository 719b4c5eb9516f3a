import type { Tx } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { ProfileInput } from "../guest/protocol.ts"

// Contact-side writes of the families that take a person's profile from a source (reservations, the guests API).

export const linkContactsToHotel = async (tx: Tx, scope: TenantScope, hotelId: string, contactIds: ReadonlyArray<string>) => {
  if (contactIds.length === 0) return
  const rows = [...new Set(contactIds)].sort().map((contact_id) => ({
    contact_id, hotel_id: hotelId, tenant_id: scope.tenant_id, sandbox: scope.sandbox
  }))
  await tx`
    INSERT INTO contact_hotels ${tx(rows)}
    ON CONFLICT (contact_id, hotel_id) DO UPDATE SET last_seen_at = now()`
}

export const recordConsents = async (
  tx: Tx,
  scope: TenantScope,
  envelopeId: string,
  source: string,
  claims: ReadonlyArray<ConsentClaim>,
  capturedAt?: string
) => {
  if (claims.length === 0) return
  const rows = claims.map((c) => ({
    ...c, tenant_id: scope.tenant_id, sandbox: scope.sandbox, source, envelope_id: envelopeId, captured_at: capturedAt ?? null
  }))
  await tx`INSERT INTO consent_records ${tx(rows)}`
}

export interface ConsentClaim {
  readonly contact_id: string
  readonly channel: "email" | "whatsapp"
  readonly granted: boolean
}

/** The consents each person's profile states, for the contact it resolved to (people without a contact say nothing). */
export const consentClaims = (
  people: ReadonlyArray<Pick<ProfileInput, "email_consent" | "whatsapp_marketing_consent">>,
  contactIds: ReadonlyArray<string | null>
): Array<ConsentClaim> =>
  people.flatMap((p, i) => {
    const contact_id = contactIds[i]
    if (!contact_id) return []
    return [
      ...(p.email_consent === undefined ? [] : [{ contact_id, channel: "email" as const, granted: p.email_consent }]),
      ...(p.whatsapp_marketing_consent === undefined ? [] : [{ contact_id, channel: "whatsapp" as const, granted: p.whatsapp_marketing_consent }])
    ]
  })
