import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { randomBytes, randomUUID } from "node:crypto"
import type postgres from "postgres"
import { eraseSubject } from "../../core/privacy/erase.ts"
import { exportSubject } from "../../core/privacy/export.ts"
import { contactIdentifiers, identifierOf, type Identifier } from "../../core/privacy/identifier.ts"
import { makePrivacyKey } from "../../core/privacy/PrivacyKey.ts"
import type { Subject } from "../../core/privacy/store.ts"
import { PrivacyStores } from "../../core/privacy/stores/registry.ts"
import { needlesOfPerson, scanDatabase } from "./scanDatabase.ts"
import { newPerson, type Person, type PrivacyHarness, startPrivacyHarness } from "./harness.ts"
import { type Seeded, seedEveryFamily } from "./seedGuest.ts"

// Issue 26, the first "Done when": one guest seeded through every family, erased by running every store of the
// registry, and then found in no row of any table (every text, json and bytea column, msgpack decoded), while the
// companion on the same reservation keeps every row of theirs. The export of the same guest holds every store's data
// and nothing of the companion. (Retained stream messages are the stream side's own test.)

let h: PrivacyHarness
let seeded: Seeded
const subjectPerson: Person = newPerson("Ysolde", "Thornquist")
const companion: Person = newPerson("Maelis", "Corvantes")
const privacyKey = makePrivacyKey(randomBytes(32))

beforeAll(async () => {
  h = await startPrivacyHarness("privacy-erase")
  seeded = await seedEveryFamily(h, subjectPerson, companion)
}, 150_000)
afterAll(async () => {
  await h?.stop()
})

/** The subject as the runner resolves it (until its routes exist): the contacts the email or phone reaches. */
const subjectOf = async (sql: postgres.Sql, p: Person): Promise<Subject> => {
  const scope = { tenant_id: h.tenant.tenant_id, sandbox: false }
  const contacts = await sql<Array<{ id: string; phone: string | null; email: string | null }>>`
    SELECT id, phone, email FROM contacts WHERE tenant_id = ${scope.tenant_id} AND sandbox = false AND (email = ${p.email} OR phone = ${p.phone})`
  const identifiers = new Map<string, Identifier>()
  for (const i of [identifierOf("email", p.email), identifierOf("phone", p.phone), ...contacts.flatMap(contactIdentifiers)]) {
    if (i !== undefined) identifiers.set(`${i.kind}:${i.value}`, i)
  }
  return {
    scope, contactIds: contacts.map((c) => c.id), identifiers: [...identifiers.values()],
    hashes: [...identifiers.values()].map((i) => privacyKey.hash(scope.tenant_id, i))
  }
}

const companionRows = async (sql: postgres.Sql) => ({
  contact: (await sql`SELECT to_jsonb(c) - 'updated_at' AS row FROM contacts c WHERE id = ${seeded.companionContactId}`).map((r) => r.row),
  guest: (await sql`SELECT to_jsonb(g) AS row FROM reservation_guests g WHERE contact_id = ${seeded.companionContactId}`).map((r) => r.row),
  consents: (await sql`SELECT count(*)::int AS n FROM consent_records WHERE contact_id = ${seeded.companionContactId}`)[0]!.n,
  hotels: (await sql`SELECT count(*)::int AS n FROM contact_hotels WHERE contact_id = ${seeded.companionContactId}`)[0]!.n
})

/** Stores whose section another section carries (reservation facts go with the subject's guest rows). */
const EXPORTED_ELSEWHERE = new Set(["reservation_facts"])

describe("privacy: erasure and export across every store", () => {
  it("exports every store's data on the subject, and nothing of the companion", async () => {
    const subject = await subjectOf(h.sql, subjectPerson)
    expect(subject.contactIds).toEqual([seeded.subjectContactId])
    const doc = await exportSubject(h.sql, subject, new Date("2030-01-01T00:00:00Z"))
    expect(doc).toMatchObject({ format: "gep.privacy.export/v1", generated_at: "2030-01-01T00:00:00.000Z", subject: { contact_ids: [seeded.subjectContactId] } })
    expect(Object.keys(doc.stores)).toEqual(PrivacyStores.map((s) => s.store))
    const empty = Object.entries(doc.stores).filter(([store, rows]) => rows.length === 0 && !EXPORTED_ELSEWHERE.has(store)).map(([store]) => store)
    // What this seed does not reach: bulk CDP jobs, B2B, broadcasts, earlier export documents.
    expect(empty.sort()).toEqual(["b2b_account_contacts", "b2b_accounts", "broadcast_recipients", "cdp_batch_items", "privacy_exports"])
    const companionIn = Object.entries(doc.stores).flatMap(([store, rows]) => {
      const text = JSON.stringify(rows).toLowerCase()
      return [...needlesOfPerson(companion), seeded.companionContactId].filter((n) => text.includes(n.toLowerCase())).map((n) => `${store} holds ${n}`)
    })
    expect(companionIn).toEqual([])
    expect(JSON.stringify(doc.stores.contacts)).toContain(subjectPerson.email)
    // Kept as an earlier request's document: the erasure below must find it.
    const requestId = randomUUID()
    await h.sql`INSERT INTO privacy_requests (id, tenant_id, sandbox, namespace, type, subject_kind, subject_hashes, contact_ids, status, key_id)
      VALUES (${requestId}, ${h.tenant.tenant_id}, false, ${h.platform.config.namespace}, 'export', 'email',
        ARRAY(SELECT decode(x, 'hex') FROM unnest(${subject.hashes!.map((x) => Buffer.from(x).toString("hex"))}::text[]) x), ${subject.contactIds as Array<string>}::uuid[], 'completed', ${privacyKey.keyId})`
    await h.sql`INSERT INTO privacy_exports (request_id, tenant_id, sandbox, document, expires_at)
      VALUES (${requestId}, ${h.tenant.tenant_id}, false, ${Buffer.from(JSON.stringify(doc))}, now() + interval '7 days')`
  })

  it("erases in batches until no text, json or bytea column of any table names the subject; the companion keeps every row", async () => {
    const needles = needlesOfPerson(subjectPerson)
    const before = await scanDatabase(h.sql, needles)
    // The seed reached the families the scan must then find empty.
    const tables = new Set(before.map((x) => x.table))
    for (const t of ["contacts", "reservation_guests", "reservations", "messages", "website_events", "calls", "loyalty_members",
      "newsletter_subscriptions", "webhook_events", "inbox", "dead_letters", "outbox", "privacy_exports"]) {
      expect(tables, `the seed wrote the subject into ${t}`).toContain(t)
    }
    const companionBefore = await companionRows(h.sql)
    const companionHitsBefore = await scanDatabase(h.sql, needlesOfPerson(companion))

    const subject = await subjectOf(h.sql, subjectPerson)
    const results = await eraseSubject(h.sql, subject, 2)
    expect(results.map((r) => r.store)).toEqual(PrivacyStores.map((s) => s.store))
    const counted = Object.fromEntries(results.map((r) => [r.store, r.count]))
    for (const store of ["contacts", "reservation_guests", "messages", "journeys", "website_events", "cdp", "calls", "loyalty", "sso",
      "newsletter_subscriptions", "webhook_events", "events", "booking_events", "reservation_facts", "website_deliveries", "inbox", "outbox", "dead_letters",
      "idempotency_keys", "privacy_exports"]) {
      expect(counted[store], store).toBeGreaterThan(0)
    }

    const after = await scanDatabase(h.sql, needles)
    expect(after.map((x) => `${x.table}.${x.column} holds ${x.needle} (${x.rows} rows)`)).toEqual([])
    // The subject's ids (not personal data by themselves) are left only where they are kept on purpose: the audit row of
    // the earlier request, inbox rows' envelope ids (the key that keeps a late redelivery a no-op), and a rate-limit
    // bucket named after the member that an ingress writes back for two minutes after its last use.
    const ids = await scanDatabase(h.sql, [seeded.subjectContactId, seeded.memberId])
    const kept = new Set(["privacy_requests.contact_ids", "inbox.envelope_id", "rate_counters.bucket"])
    expect(ids.map((x) => `${x.table}.${x.column}`).filter((c) => !kept.has(c))).toEqual([])

    // The companion: their contact and guest row unchanged, their consents and hotels kept, and still found where a
    // row of theirs alone holds them (a row shared with the subject may have gone: an inbox answer, a webhook body).
    expect(await companionRows(h.sql)).toEqual(companionBefore)
    const companionAfter = new Set((await scanDatabase(h.sql, needlesOfPerson(companion))).map((x) => `${x.table}.${x.column}`))
    for (const column of ["contacts.email", "contacts.first_name", "reservation_guests.email", "reservation_guests.phone", "dead_letters.payload", "outbox.payload"]) {
      expect(companionAfter, column).toContain(column)
    }
    expect(companionHitsBefore.length).toBeGreaterThan(0)
    // The reservation's facts stay.
    const [reservation] = await h.sql`SELECT status, check_in::text, nights, comments, metadata FROM reservations WHERE id = ${seeded.reservationId}`
    expect(reservation).toMatchObject({ status: "confirmed", check_in: "2026-12-01", nights: 3, comments: null, metadata: null })
    // The loyalty ledger keeps its amounts under a new member id, with nothing of the person.
    const anonymous = await h.sql`SELECT m.member_id, m.email, m.first_name, m.last_name, m.phone, m.balance_active::int AS active,
        m.balance_held::int AS held, (SELECT sum(points)::int FROM loyalty_entries e WHERE e.member_id = m.member_id) AS ledger
      FROM loyalty_members m WHERE m.tenant_id = ${h.tenant.tenant_id} AND m.kind = 'member'`
    expect(anonymous).toEqual([{ member_id: expect.any(String), email: `erased:${anonymous[0]!.member_id}`, first_name: null, last_name: null,
      phone: null, active: 350, held: 40, ledger: 350 }])
    expect(anonymous[0]!.member_id).not.toBe(seeded.memberId)
    expect((await h.sql`SELECT count(*)::int AS n FROM loyalty_holds WHERE member_id = ${anonymous[0]!.member_id}`)[0]!.n).toBe(1)

    // Resumable: a second run finds nothing left (but a rate-limit bucket an ingress used in the last two minutes, which
    // it writes back by the address's digest: src/auth/RateLimiter.ts).
    expect((await eraseSubject(h.sql, subject, 2)).filter((r) => r.count > 0 && r.store !== "rate_counters")).toEqual([])
  })
})
