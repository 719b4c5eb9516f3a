import { randomUUID } from "node:crypto"
import fc from "fast-check"
import type postgres from "postgres"
import { isoDay } from "../../../core/segment/time.ts"
import { BROADCASTS, CUSTOM_FIELDS, dayOffset, EVENT_TYPES, HOTELS, instant, NOW, NUMBERS, STRINGS, TODAY } from "./definitions.ts"

// Random data of one tenant for the differential test: a few contacts with random attributes (some values of the
// wrong JSON type), stays at hotels in different zones (some shared by two contacts, some listing one guest twice),
// events of both kinds, messages in every status, suppressions, loyalty members with tiers.

const pick = <T>(xs: ReadonlyArray<T>) => fc.constantFrom(...xs)
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: null })
const day = dayOffset.map((d) => isoDay(TODAY + d))

const customValue = (key: string): fc.Arbitrary<unknown> => {
  const pool = (k: string) => pick(STRINGS[`custom.${k}`]!)
  const good: Record<string, fc.Arbitrary<unknown>> = {
    k_str: pool("k_str"), k_text: pool("k_text"), k_sel: pool("k_sel"), k_num: NUMBERS["custom.k_num"]!, k_bool: fc.boolean(),
    k_date: day,
    k_dt: instant.map((t) => new Date(t).toISOString()),
    k_multi: fc.uniqueArray(pool("k_multi"), { maxLength: 3 })
  }
  // What a definition changed after values were written leaves behind: other JSON types, impossible dates.
  const odd = pick<unknown>(["5", 5, true, null, ["a", 1], { a: 1 }, "2026-02-30", "2026-06-15T10:00:00.123456Z", "soon"])
  return fc.oneof({ arbitrary: good[key]!, weight: 4 }, { arbitrary: odd, weight: 1 })
}

const contact = fc.record({
  hasEmail: fc.boolean(),
  hasPhone: fc.boolean(),
  language: pick(STRINGS["contact.language"]!),
  nationality: maybe(pick(STRINGS["contact.nationality"]!)),
  gender: maybe(pick(STRINGS["contact.gender"]!)),
  date_of_birth: maybe(day),
  address: fc.oneof(
    fc.constant(null),
    fc.record({ country: pick(STRINGS["contact.address.country"]!), city: pick(STRINGS["contact.address.city"]!) },
      { requiredKeys: [] }),
    fc.constant({ country: 34, city: ["Palma"] })
  ),
  tags: fc.uniqueArray(pick(STRINGS["contact.tags"]!), { maxLength: 3 }),
  source: maybe(pick(STRINGS["contact.source"]!)),
  created_at: instant,
  email_consent: maybe(fc.boolean()),
  whatsapp_marketing_consent: maybe(fc.boolean()),
  email_opted_out: fc.boolean(),
  whatsapp_opted_out: fc.boolean(),
  custom: fc.uniqueArray(pick(CUSTOM_FIELDS.map((d) => d.field_key)), { maxLength: 8 })
    .chain((keys) => fc.tuple(...keys.map((k) => customValue(k).map((v) => [k, v] as const)))),
  /** Rows of the other mode (sandbox) naming this contact's id or addresses: neither evaluator may see them. */
  otherMode: fc.boolean(),
  suppressedEmail: fc.boolean(),
  suppressedPhone: fc.boolean(),
  member: fc.option(fc.record({ points: NUMBERS["loyalty.points"]!, qualifying: fc.integer({ min: 0, max: 800 }), active: fc.boolean() }),
    { nil: null }),
  events: fc.array(fc.record({ table: pick(["events", "website_events", "cdp_events"]), type: pick(EVENT_TYPES), at: instant }), { maxLength: 4 }),
  messages: fc.array(fc.record({
    channel: pick(["email", "whatsapp"]),
    direction: pick(["outbound", "outbound", "inbound"]),
    status: pick(["queued", "sent", "delivered", "read", "failed", "skipped", "received"]),
    broadcast: maybe(pick(BROADCASTS)),
    journey: maybe(fc.integer({ min: 0, max: 1 }))
  }), { maxLength: 3 })
})

const stay = fc.record({
  hotel: fc.integer({ min: 0, max: HOTELS.length - 1 }),
  guests: fc.array(fc.nat(), { minLength: 1, maxLength: 3 }),
  check_in: dayOffset,
  nights: NUMBERS["stay.nights"]!,
  booking_date: maybe(fc.integer({ min: 0, max: 30 })),
  status: pick(STRINGS["stay.status"]!),
  stage: pick(STRINGS["stay.stage"]!),
  channel: maybe(pick(STRINGS["stay.channel"]!)),
  source: pick(STRINGS["stay.source"]!),
  market_segment: maybe(pick(STRINGS["stay.market_segment"]!)),
  rate_code: maybe(pick(STRINGS["stay.rate_code"]!)),
  room_type: maybe(pick(STRINGS["stay.room_type"]!)),
  board_type: maybe(pick(STRINGS["stay.board_type"]!)),
  amount: maybe(NUMBERS["stay.amount"]!),
  agency: maybe(pick(STRINGS["stay.agency"]!)),
  company: maybe(pick(STRINGS["stay.company"]!))
})

export const world = fc.record({
  contacts: fc.array(contact, { minLength: 1, maxLength: 6 }),
  stays: fc.array(stay, { maxLength: 8 })
})
export type World = typeof world extends fc.Arbitrary<infer W> ? W : never

/** Writes a world as a new tenant (as the owner: no row-level security); answers the tenant, contacts and ids. */
export const insertWorld = async (sql: postgres.Sql, w: World) => {
  const tenantId = randomUUID()
  const ids: Record<string, string> = {}
  const contactIds = w.contacts.map(() => randomUUID())
  await sql.begin(async (tx) => {
    // Loyalty members are written with their balances and qualifying totals only (what the segment reads), without
    // the ledger lots the balance check (a deferred trigger) would compare them with: triggers off for this load.
    await tx`SET LOCAL session_replication_role = replica`
    await tx`INSERT INTO tenants (id, name) VALUES (${tenantId}, ${`segment differential ${tenantId}`})`
    for (const [i, h] of HOTELS.entries()) {
      ids[`@hotel${i}`] = randomUUID()
      await tx`INSERT INTO hotels (id, tenant_id, code, name, timezone) VALUES (${ids[`@hotel${i}`]!}, ${tenantId}, ${h.code}, ${h.code}, ${h.timezone})`
    }
    for (const j of [0, 1]) {
      ids[`@journey${j}`] = randomUUID()
      await tx`INSERT INTO journey_definitions (id, tenant_id, name) VALUES (${ids[`@journey${j}`]!}, ${tenantId}, ${`j${j}`})`
    }
    await tx`INSERT INTO loyalty_tiers (tenant_id, sandbox, tier_slug, tier_name, rank, threshold, basis)
      VALUES (${tenantId}, false, 'bronze', 'Bronze', 1, 0, 'qualifying_points'), (${tenantId}, false, 'silver', 'Silver', 2, 200, 'qualifying_points'),
        (${tenantId}, false, 'gold', 'Gold', 3, 500, 'qualifying_points'), (${tenantId}, true, 'gold', 'Gold', 1, 0, 'qualifying_points')`
    for (const d of CUSTOM_FIELDS) {
      await tx`INSERT INTO custom_field_definitions (tenant_id, sandbox, field_key, field_label, field_type, options)
        VALUES (${tenantId}, false, ${d.field_key}, ${d.field_key}, ${d.field_type}, ${d.options as Array<string> | null})`
    }
    for (const [i, c] of w.contacts.entries()) {
      const id = contactIds[i]!
      const email = c.hasEmail ? `Guest${i}@example.test` : null
      const phone = c.hasPhone ? `+3460000000${i}` : null
      await tx`INSERT INTO contacts (id, tenant_id, sandbox, email, phone, language, nationality, gender, date_of_birth, address,
          tags, source, created_at, email_consent, whatsapp_marketing_consent, email_opted_out_at, whatsapp_opted_out_at, custom_fields)
        VALUES (${id}, ${tenantId}, false, ${email}, ${phone}, ${c.language}, ${c.nationality}, ${c.gender}, ${c.date_of_birth},
          ${c.address === null ? null : tx.json(c.address as never)}, ${c.tags as Array<string>}, ${c.source},
          ${new Date(c.created_at)}::timestamptz + interval '250 microseconds', ${c.email_consent}, ${c.whatsapp_marketing_consent},
          ${c.email_opted_out ? NOW : null}, ${c.whatsapp_opted_out ? NOW : null}, ${tx.json(Object.fromEntries(c.custom) as never)})`
      if (email !== null && c.suppressedEmail) {
        await tx`INSERT INTO suppressions (tenant_id, sandbox, channel, address, reason) VALUES (${tenantId}, false, 'email', ${email}, 'bounce')`
      }
      if (phone !== null && c.suppressedPhone) {
        await tx`INSERT INTO suppressions (tenant_id, sandbox, channel, address, reason) VALUES (${tenantId}, false, 'whatsapp', ${phone}, 'stop')`
      }
      if (email !== null && c.member !== null) {
        await tx`INSERT INTO loyalty_members (member_id, tenant_id, sandbox, email, status, balance_active, qualifying_points)
          VALUES (${randomUUID()}, ${tenantId}, false, ${email.toLowerCase()}, ${c.member.active ? "active" : "unsubscribed"},
            ${c.member.points}, ${c.member.qualifying})`
      }
      if (c.otherMode) {
        for (const [channel, address] of [["email", email], ["whatsapp", phone]] as const) {
          if (address !== null) {
            await tx`INSERT INTO suppressions (tenant_id, sandbox, channel, address, reason) VALUES (${tenantId}, true, ${channel}, ${address}, 'bounce')`
          }
        }
        if (email !== null) {
          await tx`INSERT INTO loyalty_members (member_id, tenant_id, sandbox, email, balance_active, qualifying_points)
            VALUES (${randomUUID()}, ${tenantId}, true, ${email.toLowerCase()}, 777, 999)`
        }
        await tx`INSERT INTO events (id, tenant_id, sandbox, type, contact_id, payload, created_at)
          VALUES (${randomUUID()}, ${tenantId}, true, ${EVENT_TYPES[i % EVENT_TYPES.length]!}, ${id}, '{}', ${NOW})`
        await tx`INSERT INTO messages (id, tenant_id, sandbox, contact_id, channel, direction, origin, status, broadcast_id)
          VALUES (${randomUUID()}, ${tenantId}, true, ${id}, 'email', 'outbound', 'api', 'sent', ${BROADCASTS[0]})`
      }
      for (const e of c.events) {
        if (e.table === "website_events") {
          await tx`INSERT INTO website_events (id, tenant_id, sandbox, source_id, event, contact_id, occurred_at, payload)
            VALUES (${randomUUID()}, ${tenantId}, false, ${randomUUID()}, ${e.type}, ${id}, ${new Date(e.at)}, '{}')`
        } else if (e.table === "cdp_events") {
          await tx`INSERT INTO cdp_events (tenant_id, sandbox, visitor_id, session_id, contact_id, type, ts, dedupe_key)
            VALUES (${tenantId}, false, 'v', 's', ${id}, ${e.type}, ${new Date(e.at)}, ${randomUUID()})`
        } else {
          // Microseconds, as now() writes them: both evaluators must agree on an event 0.5 ms past a bound.
          await tx`INSERT INTO events (id, tenant_id, sandbox, type, contact_id, payload, created_at)
            VALUES (${randomUUID()}, ${tenantId}, false, ${e.type}, ${id}, '{}', ${new Date(e.at)}::timestamptz + interval '500 microseconds')`
        }
      }
      for (const m of c.messages) {
        let runId: string | null = null
        if (m.journey !== null) {
          runId = randomUUID()
          await tx`INSERT INTO journey_runs (id, tenant_id, sandbox, journey_id, version, contact_id, scope, state, trigger, started_at, ended_at, updated_at)
            VALUES (${runId}, ${tenantId}, false, ${ids[`@journey${m.journey}`]!}, 1, ${id}, 'contact', 'completed', '{}', ${NOW}, ${NOW}, ${NOW})`
        }
        await tx`INSERT INTO messages (id, tenant_id, sandbox, contact_id, channel, direction, origin, status, skip_reason,
            broadcast_id, journey_run_id)
          VALUES (${randomUUID()}, ${tenantId}, false, ${id}, ${m.channel}, ${m.direction}, 'api', ${m.status},
            ${m.status === "skipped" ? "no_consent" : null}, ${m.broadcast}, ${runId})`
      }
    }
    for (const [i, s] of w.stays.entries()) {
      const rid = randomUUID()
      const checkIn = TODAY + s.check_in
      await tx`INSERT INTO reservations (id, tenant_id, sandbox, external_id, hotel_id, check_in, check_out, nights, booking_date,
          status, guest_stage, channel, source, market_segment, rate_plan, room_type, stays, amount, agency, company)
        VALUES (${rid}, ${tenantId}, false, ${`r${i}`}, ${ids[`@hotel${s.hotel}`]!}, ${isoDay(checkIn)}, ${isoDay(checkIn + s.nights)},
          ${s.nights}, ${s.booking_date === null ? null : isoDay(checkIn - s.booking_date)}, ${s.status}, ${s.stage}, ${s.channel},
          ${s.source}, ${s.market_segment}, ${s.rate_code}, ${s.room_type},
          ${tx.json([{ board_type: s.board_type, room_type: s.room_type }] as never)}, ${s.amount}, ${s.agency}, ${s.company})`
      for (const [position, g] of s.guests.entries()) {
        await tx`INSERT INTO reservation_guests (reservation_id, position, tenant_id, sandbox, contact_id, first_name)
          VALUES (${rid}, ${position}, ${tenantId}, false, ${contactIds[g % contactIds.length]!}, 'Guest')`
      }
    }
  })
  return { tenantId, contactIds, ids }
}
