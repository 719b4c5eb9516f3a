import type { Agent } from "node:http"
import type postgres from "postgres"
import { exchange, Latencies, round } from "./load.ts"

// Segments: `POST /api/v1/segments/preview` on an account of 100,000 contacts (issue 25: ≤ 2 s). The account is the
// phase's own (a tenant of its own, so no other phase's contacts count) and is filled by SQL, not through the API: the
// phase measures evaluating a tree, and 100,000 contacts with stays, events and messages through the ingestion path
// would take most of an hour here. The shapes follow what the actors write (a contact per guest, a reservation_guests
// row linking it to its stay, core events and outbound messages per contact).

export const SEGMENT_DEFINITIONS: Readonly<Record<string, unknown>> = {
  attribute: { version: 1, match: { field: "contact.language", op: "eq", value: "es" } },
  upcoming_stay: {
    version: 1,
    match: { all: [
      { field: "contact.language", op: "in", value: ["es", "ca"] },
      { has_stay: { where: { all: [
        { field: "stay.check_in", op: "within_next", value: { days: 30 } },
        { field: "stay.status", op: "in", value: ["confirmed", "modified"] }
      ] } } },
      { reachable: { channel: "email", category: "marketing" } }
    ] }
  },
  behaviour: {
    version: 1,
    match: { any: [
      { performed: { event: "booking.created", within_last: { days: 30 }, count: { op: "gte", value: 1 } } },
      { all: [{ field: "contact.tags", op: "contains_any", value: ["vip"] }, { received: { channel: "email", negate: true } }] }
    ] }
  },
  repeat_guests: {
    version: 1,
    match: { all: [
      { has_stay: { where: { field: "stay.status", op: "eq", value: "checked_out" }, count: { op: "gte", value: 2 } } },
      { not: { field: "contact.nationality", op: "eq", value: "DE" } },
      { field: "contact.address.city", op: "starts_with", value: "Ma" }
    ] }
  }
}

/**
 * 100,000 contacts (by default), about 60 % with a stay (a fifth of those with two), events and messages for some; three
 * in four with an email, or all of them with `everyEmailed` (the broadcast phase mails each). The broadcast phase fills
 * its own account with it too.
 */
export const fillContacts = async (
  pool: postgres.Sql, tenantId: string, hotelIds: ReadonlyArray<string>, contacts: number, o: { readonly everyEmailed?: boolean } = {}
) => {
  // One connection throughout: the temporary tables are the session's.
  const sql = await pool.reserve()
  await sql`INSERT INTO contacts (id, tenant_id, sandbox, phone, email, first_name, last_name, language, nationality, gender, tags,
      email_consent, whatsapp_marketing_consent, source, address, created_at, updated_at)
    SELECT gen_random_uuid(), ${tenantId}, false, '+1555' || lpad(i::text, 7, '0'),
      CASE WHEN ${o.everyEmailed ?? false} OR i % 4 <> 0 THEN 'seg' || i || '@bench-guests.net' END, 'First' || i, 'Last' || i,
      (ARRAY['es','en','de','fr','ca'])[1 + i % 5], (ARRAY['ES','GB','DE','FR','US','IT'])[1 + i % 6],
      (ARRAY['female','male'])[1 + i % 2], CASE WHEN i % 10 = 0 THEN ARRAY['vip'] ELSE '{}'::text[] END,
      i % 3 = 0, i % 5 = 0, 'bench',
      jsonb_build_object('country', (ARRAY['ES','GB','DE','FR'])[1 + i % 4], 'city', (ARRAY['Madrid','Malaga','London','Paris','Berlin'])[1 + i % 5]),
      now() - (i % 700) * interval '1 day', now()
    FROM generate_series(1, ${contacts}) i`
  await sql`CREATE TEMP TABLE seg_contacts AS
    SELECT id, row_number() OVER (ORDER BY id) AS i FROM contacts WHERE tenant_id = ${tenantId}`
  // Every contact of six in ten has a stay, every fifth of them two: one in the last 200 days, one in the next 200.
  await sql`CREATE TEMP TABLE seg_stays AS
    SELECT gen_random_uuid() AS id, c.id AS contact_id, c.i, k, ((c.i * 7 + k * 90) % 400 - 200)::int AS offset_days
    FROM seg_contacts c CROSS JOIN generate_series(0, 1) k
    WHERE c.i % 10 < 6 AND (k = 0 OR c.i % 5 = 0)`
  await sql`INSERT INTO reservations (id, tenant_id, sandbox, external_id, hotel_id, check_in, check_out, nights, booking_date, status,
      guest_stage, channel, source, amount, currency, room_type, rate_plan, market_segment)
    SELECT s.id, ${tenantId}, false, 'SEG-' || s.i || '-' || s.k, (${hotelIds as Array<string>}::uuid[])[1 + (s.i + s.k) % ${hotelIds.length}],
      current_date + s.offset_days, current_date + s.offset_days + 3, 3, current_date - 30,
      CASE WHEN s.offset_days < 0 THEN 'checked_out' WHEN s.i % 17 = 0 THEN 'cancelled' ELSE 'confirmed' END,
      CASE WHEN s.offset_days < 0 THEN 'post_stay' ELSE 'pre_stay' END, 'direct', 'pms', 300 + s.i % 500, 'EUR',
      (ARRAY['DBL','SGL','STE'])[1 + s.i % 3], (ARRAY['BAR','NRF','PKG'])[1 + s.i % 3], 'leisure'
    FROM seg_stays s`
  await sql`INSERT INTO reservation_guests (reservation_id, position, tenant_id, sandbox, contact_id, first_name, is_holder)
    SELECT s.id, 0, ${tenantId}, false, s.contact_id, 'Guest', true FROM seg_stays s`
  await sql`INSERT INTO events (id, tenant_id, sandbox, type, contact_id, payload, created_at)
    SELECT gen_random_uuid(), ${tenantId}, false, (ARRAY['booking.created','cart.abandoned','survey.completed'])[1 + c.i % 3], c.id, '{}'::jsonb,
      now() - (c.i % 90) * interval '1 day'
    FROM seg_contacts c WHERE c.i % 3 = 0`
  await sql`INSERT INTO messages (id, tenant_id, sandbox, contact_id, channel, direction, category, origin, status, to_address, created_at, sent_at)
    SELECT gen_random_uuid(), ${tenantId}, false, c.id, 'email', 'outbound', 'marketing', 'api', 'delivered', 'x@bench-guests.net',
      now() - (c.i % 60) * interval '1 day', now() - (c.i % 60) * interval '1 day'
    FROM seg_contacts c WHERE c.i % 4 = 1`
  await sql`DROP TABLE seg_contacts, seg_stays`
  for (const table of ["contacts", "reservations", "reservation_guests", "events", "messages"]) await sql.unsafe(`ANALYZE ${table}`)
  sql.release()
}

export const segmentsPhase = async (o: {
  readonly sql: postgres.Sql
  readonly agent: Agent
  readonly port: number
  /** A tenant of the phase's own, with its hotels. */
  readonly tenant: { readonly tenant_id: string; readonly live_key: string }
  readonly hotelIds: ReadonlyArray<string>
  readonly contacts: number
  readonly repeats: number
}) => {
  const t0 = performance.now()
  await fillContacts(o.sql, o.tenant.tenant_id, o.hotelIds, o.contacts)
  const fillS = round((performance.now() - t0) / 1000)
  const previews: Record<string, { count: number | null; status: number; latency_ms: ReturnType<Latencies["summary"]> }> = {}
  for (const [name, definition] of Object.entries(SEGMENT_DEFINITIONS)) {
    const latencies = new Latencies()
    let count: number | null = null
    let status = 0
    for (let i = 0; i < o.repeats; i++) {
      const started = performance.now()
      const res = await exchange(o.agent, o.port, {
        method: "POST", path: "/api/v1/segments/preview",
        headers: { authorization: `Bearer ${o.tenant.live_key}`, "content-type": "application/json" },
        body: JSON.stringify({ definition })
      })
      latencies.add(performance.now() - started)
      status = res.status
      count = res.status === 200 ? (JSON.parse(res.body) as { data: { count: number } }).data.count : null
      if (res.status !== 200) console.error(`segment preview ${name}: ${res.status} ${res.body.slice(0, 300)}`)
    }
    previews[name] = { count, status, latency_ms: latencies.summary() }
  }
  const slowest = Math.max(...Object.values(previews).map((p) => p.latency_ms.max ?? Number.POSITIVE_INFINITY))
  return { contacts: o.contacts, fill_s: fillS, repeats: o.repeats, previews, slowest_preview_ms: round(slowest) }
}
