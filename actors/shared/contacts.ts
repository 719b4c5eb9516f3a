import { type Tx, withRecords } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { ProfileInput } from "../guest/protocol.ts"

// Contact-side writes of the families that take a person's profile from a source (reservations, the guests API),
// set-based: one statement for all the people of a group, its text the same whatever their number (one prepared plan).

export interface HotelLink {
  readonly contact_id: string
  readonly hotel_id: string
}

/**
 * Each contact seen at each hotel (once per pair, in a stable order: concurrent groups lock rows alike). A link seen
 * within the last hour is left as it is: a PMS re-sends a reservation many times a day, and rewriting the row for each
 * (a new row version, its index entries, WAL) bought only a `last_seen_at` to the second; it is to the hour now.
 */
export const linkContactsToHotels = async (tx: Tx, scope: TenantScope, links: ReadonlyArray<HotelLink>) => {
  if (links.length === 0) return
  const pairs = new Map(links.map((l) => [`${l.contact_id}/${l.hotel_id}`, l]))
  const rows = [...pairs.keys()].sort().map((k) => pairs.get(k)!)
  await tx`
    INSERT INTO contact_hotels (contact_id, hotel_id, tenant_id, sandbox)
    SELECT c, h, ${scope.tenant_id}, ${scope.sandbox}
    FROM unnest(${rows.map((r) => r.contact_id)}::uuid[], ${rows.map((r) => r.hotel_id)}::uuid[]) AS x(c, h)
    WHERE NOT EXISTS (
      SELECT 1 FROM contact_hotels ch WHERE ch.contact_id = x.c AND ch.hotel_id = x.h AND ch.last_seen_at > now() - interval '1 hour')
    ON CONFLICT (contact_id, hotel_id) DO UPDATE SET last_seen_at = now()`
}

export interface ConsentClaim {
  readonly contact_id: string
  readonly channel: "email" | "whatsapp"
  readonly granted: boolean
}

/** A consent statement as recorded: the claim, where it came from, and when the source says it was captured. */
export interface ConsentRecord extends ConsentClaim {
  readonly source: string
  readonly envelope_id: string
  readonly captured_at?: string | undefined
}

/**
 * Records each consent claim, unless it only restates the channel's last recorded claim (the same answer from the same
 * source: a PMS re-sending a reservation, a guest's profile pushed again). The audit trail keeps every change and every
 * new source's statement, with the first evidence of each; a restatement added a row, and a timeline entry, per re-send.
 */
export const recordConsents = async (tx: Tx, scope: TenantScope, records: ReadonlyArray<ConsentRecord>) => {
  if (records.length === 0) return
  await withRecords(
    tx,
    scope,
    `INSERT INTO consent_records (contact_id, channel, granted, source, envelope_id, captured_at, tenant_id, sandbox)
     SELECT s.contact_id, s.channel, s.granted, s.source, s.envelope_id, s.captured_at, $1, $2
     FROM jsonb_to_recordset($3::jsonb) AS s(contact_id uuid, channel text, granted boolean, source text,
       envelope_id text, captured_at timestamptz)
     WHERE NOT EXISTS (
       SELECT 1 FROM (
         SELECT r.granted, r.source FROM consent_records r WHERE r.contact_id = s.contact_id AND r.channel = s.channel
         ORDER BY r.recorded_at DESC, r.id DESC LIMIT 1) AS last
       WHERE last.granted = s.granted AND last.source = s.source)`,
    records
  )
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
