import type postgres from "postgres"

// The privacy phase's account, filled by SQL in the shapes the actors and the deliverer write (a contact per guest, its
// guest row on each stay carrying its email and phone, booking events on the reservation and partner events on the
// contact, an outbound email, a call for some, the webhook body emitted about it, the stored answer of an
// Idempotency-Key request for some). Filled in ranges of guest numbers, so the phase can time the stores on a part
// of the account and again on the whole. Inbox and outbox rows are left out: their size follows the envelope rate and
// the retention window, not the account (the bench's sweep would remove them within a minute anyway).

/** Every guest number divisible by this has a row in every store filled: the phase's subjects are among them. */
export const FULL_SHAPE_EVERY = 30

export const guestEmail = (i: number) => `guest${i}@bench-privacy.net`
/** A Spanish mobile number, E.164 (as contacts store it). */
export const guestPhone = (i: number) => `+346${String(i).padStart(8, "0")}`

/** A disabled webhook subscription the filled bodies hang on (disabled: the erasure's contact.deleted goes nowhere). */
export const benchSubscription = async (sql: postgres.Sql, tenantId: string): Promise<string> => {
  const [row] = await sql`
    INSERT INTO webhook_subscriptions (id, tenant_id, sandbox, url, event_types, enabled, max_attempts, initial_backoff_seconds,
      max_backoff_seconds, secret_encrypted)
    VALUES (gen_random_uuid(), ${tenantId}, false, 'https://partner.invalid/hooks', ARRAY['contact.created'], false, 1, 1, 1, '\\x00'::bytea)
    RETURNING id::text AS id`
  return row!.id as string
}

/** Guests `from`..`to` (inclusive) of the account, with their stays, events, messages, calls and copies. */
export const fillGuests = async (
  pool: postgres.Sql, o: { readonly tenantId: string; readonly hotelId: string; readonly subscriptionId: string; readonly from: number; readonly to: number }
) => {
  // One connection throughout: the temporary tables are the session's.
  const sql = await pool.reserve()
  const t = o.tenantId
  try {
    await sql`CREATE TEMP TABLE pv_guests AS
      SELECT gen_random_uuid() AS id, i, 'guest' || i || '@bench-privacy.net' AS email, '+346' || lpad(i::text, 8, '0') AS phone
      FROM generate_series(${o.from}::int, ${o.to}::int) i`
    await sql`INSERT INTO contacts (id, tenant_id, sandbox, phone, email, first_name, last_name, language, nationality, tags,
        email_consent, source, address, created_at, updated_at)
      SELECT g.id, ${t}, false, g.phone, g.email, 'First' || g.i, 'Last' || g.i, (ARRAY['es','en','de'])[1 + g.i % 3],
        (ARRAY['ES','GB','DE'])[1 + g.i % 3], '{}'::text[], g.i % 2 = 0, 'bench',
        jsonb_build_object('city', 'Madrid', 'line1', 'Calle ' || g.i), now() - (g.i % 700) * interval '1 day', now()
      FROM pv_guests g`
    // One stay each, a second for every third guest; the PMS's comments on some.
    await sql`CREATE TEMP TABLE pv_stays AS
      SELECT gen_random_uuid() AS id, g.id AS contact_id, g.i, g.email, g.phone, k
      FROM pv_guests g CROSS JOIN generate_series(0, 1) k WHERE k = 0 OR g.i % 3 = 0`
    await sql`INSERT INTO reservations (id, tenant_id, sandbox, external_id, hotel_id, check_in, check_out, nights, booking_date, status,
        guest_stage, channel, source, amount, currency, room_type, rate_plan, comments)
      SELECT s.id, ${t}, false, 'PRV-' || s.i || '-' || s.k, ${o.hotelId}, current_date - 300 + (s.i + s.k * 90) % 400,
        current_date - 297 + (s.i + s.k * 90) % 400, 3, current_date - 330 + (s.i + s.k * 90) % 400, 'confirmed', 'pre_stay', 'direct', 'pms',
        300 + s.i % 500, 'EUR', 'DBL', 'BAR', CASE WHEN s.i % 5 = 0 THEN 'Late arrival, guest ' || s.i END
      FROM pv_stays s`
    await sql`INSERT INTO reservation_guests (reservation_id, position, tenant_id, sandbox, contact_id, first_name, last_name, email, phone, is_holder)
      SELECT s.id, 0, ${t}, false, s.contact_id, 'First' || s.i, 'Last' || s.i, s.email, s.phone, true FROM pv_stays s`
    // The reservation actor's booking event on each stay; a partner's event on the contact for every other guest.
    await sql`INSERT INTO events (id, tenant_id, sandbox, type, contact_id, hotel_id, reservation_id, source, payload, created_at)
      SELECT gen_random_uuid(), ${t}, false, 'booking.created', s.contact_id, ${o.hotelId}, s.id, 'pms',
        jsonb_build_object('contact_ids', jsonb_build_array(s.contact_id::text)), now() - (s.i % 300) * interval '1 day'
      FROM pv_stays s`
    await sql`INSERT INTO events (id, tenant_id, sandbox, type, contact_id, payload, created_at)
      SELECT gen_random_uuid(), ${t}, false, 'survey.completed', g.id, jsonb_build_object('score', g.i % 10), now() - (g.i % 90) * interval '1 day'
      FROM pv_guests g WHERE g.i % 2 = 0`
    await sql`INSERT INTO messages (id, tenant_id, sandbox, contact_id, channel, direction, category, origin, status, to_address, created_at, sent_at)
      SELECT gen_random_uuid(), ${t}, false, g.id, 'email', 'outbound', 'utility', 'api', 'delivered', g.email,
        now() - (g.i % 60) * interval '1 day', now() - (g.i % 60) * interval '1 day'
      FROM pv_guests g`
    await sql`INSERT INTO calls (id, tenant_id, sandbox, provider, call_id, direction, from_number, to_number, contact_id, status, started_at, summary)
      SELECT gen_random_uuid(), ${t}, false, 'bench', 'call-' || g.i, 'inbound', g.phone, '+34910000000', g.id, 'completed',
        now() - (g.i % 60) * interval '1 day', 'Asked about parking'
      FROM pv_guests g WHERE g.i % 10 = 0`
    // The deliverer keeps every body it emitted for 14 days: one contact.created body per guest (an upper bound: all
    // of them within the window), found by the stores by contact_id or by text.
    await sql`INSERT INTO webhook_events (subscription_id, event_id, tenant_id, sandbox, event_type, body, contact_id, emitted_at)
      SELECT ${o.subscriptionId}, 'evt-' || g.id, ${t}, false, 'contact.created',
        jsonb_build_object('type', 'contact.created', 'data', jsonb_build_object('contact', jsonb_build_object(
          'id', g.id, 'email', g.email, 'phone', g.phone, 'first_name', 'First' || g.i)))::text,
        g.id, now() - (g.i % 14) * interval '1 day'
      FROM pv_guests g`
    // Idempotency-Key answers are kept a day: a fifth of the guests were created by such a request.
    await sql`INSERT INTO idempotency_keys (tenant_id, sandbox, key, request_hash, owner, status, headers, body, created_at)
      SELECT ${t}, false, 'idem-' || g.i, '\\x00'::bytea, gen_random_uuid(), 201, '{"content-type":"application/json"}'::jsonb,
        convert_to(jsonb_build_object('data', jsonb_build_object('contact_id', g.id, 'email', g.email))::text, 'UTF8'), now() - (g.i % 20) * interval '1 hour'
      FROM pv_guests g WHERE g.i % 5 = 0`
    await sql`DROP TABLE pv_guests, pv_stays`
    for (const table of ["contacts", "reservations", "reservation_guests", "events", "messages", "calls", "webhook_events", "idempotency_keys"]) {
      await sql.unsafe(`ANALYZE ${table}`)
    }
  } finally {
    sql.release()
  }
}

/** A filled guest's contact id, by its number. */
export const contactIdOf = async (sql: postgres.Sql, tenantId: string, i: number): Promise<string> => {
  const [row] = await sql`SELECT id::text AS id FROM contacts WHERE tenant_id = ${tenantId} AND sandbox = false AND email = ${guestEmail(i)}`
  if (row === undefined) throw new Error(`no filled guest ${i}`)
  return row.id as string
}
