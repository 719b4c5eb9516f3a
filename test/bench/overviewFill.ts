import type postgres from "postgres"

// An account for the overview statistics (GET /api/v1/overview), filled by SQL in the shapes the actors and the
// deliverer write: `reservations` spread over 400 days and the given hotels, 0.6 contacts per reservation (each linked
// to a hotel), 0.3 journey runs per reservation over 5 journeys, a message per reservation (70 % email, every
// status, some from a run), and the webhook attempts of the last 14 days (the delivery log's retention). Every
// distribution is derived from the row number, so two fills of one size are alike.

const DAYS = 400

/** Fills one account (tenant with its hotels already there) with `reservations` reservations and the rest around them. */
export const fillOverview = async (
  pool: postgres.Sql, o: { readonly tenantId: string; readonly hotelIds: ReadonlyArray<string>; readonly reservations: number }
) => {
  const sql = await pool.reserve()
  const t = o.tenantId
  const n = o.reservations
  const hotels = o.hotelIds as Array<string>
  const spread = (i: string) => `now() - (${i} % ${DAYS}) * interval '1 day' - (${i}::bigint * 7919 % 86400) * interval '1 second'`
  try {
    await sql`INSERT INTO contacts (id, tenant_id, sandbox, email, first_name, language, created_at, updated_at)
      SELECT gen_random_uuid(), ${t}, false, 'ov' || i || '@bench-overview.net', 'Guest' || i, 'en',
        ${sql.unsafe(spread("i"))}, now()
      FROM generate_series(1, ${Math.round(n * 0.6)}::int) i`
    await sql`INSERT INTO contact_hotels (contact_id, hotel_id, tenant_id, sandbox, first_seen_at, last_seen_at)
      SELECT c.id, (${hotels}::uuid[])[1 + abs(hashtext(c.id::text)) % ${hotels.length}], ${t}, false, c.created_at, c.created_at
      FROM contacts c WHERE c.tenant_id = ${t}`
    await sql`INSERT INTO reservations (id, tenant_id, sandbox, external_id, hotel_id, check_in, check_out, nights, status,
        guest_stage, source, created_at, updated_at)
      SELECT gen_random_uuid(), ${t}, false, 'OV-' || i, (${hotels}::uuid[])[1 + i % ${hotels.length}],
        current_date + (i % 120), current_date + (i % 120) + 2, 2, 'confirmed', 'pre_stay', 'pms',
        ${sql.unsafe(spread("i"))}, now()
      FROM generate_series(1, ${n}::int) i`
    await sql`INSERT INTO journey_definitions (id, tenant_id, sandbox, name, trigger_event_type, status, trigger_type)
      SELECT gen_random_uuid(), ${t}, false, 'Overview journey ' || j, 'booking.created', 'active', 'event' FROM generate_series(1, 5) j`
    await sql`INSERT INTO journey_versions (journey_id, version, tenant_id, sandbox, definition)
      SELECT id, 1, ${t}, false, '{"trigger":{"type":"event","event":"booking.created"},"steps":[]}'::jsonb
      FROM journey_definitions WHERE tenant_id = ${t}`
    await sql`CREATE TEMP TABLE ov_journeys AS SELECT array_agg(id ORDER BY id) AS ids FROM journey_definitions WHERE tenant_id = ${t}`
    await sql`INSERT INTO journey_runs (id, tenant_id, sandbox, journey_id, version, contact_id, scope, hotel_id, state, wake_at,
        trigger, started_at, ended_at, updated_at)
      SELECT gen_random_uuid(), ${t}, false, j.ids[1 + i % 5], 1, c.id, 'run-' || i, (${hotels}::uuid[])[1 + i % ${hotels.length}],
        s.state, CASE WHEN s.state = 'waiting' THEN now() + interval '1 day' END, '{}'::jsonb, c.created_at,
        CASE WHEN s.state IN ('completed', 'stopped', 'failed') THEN c.created_at + interval '1 day' END, now()
      FROM generate_series(1, ${Math.round(n * 0.3)}::int) i
      CROSS JOIN ov_journeys j
      JOIN LATERAL (SELECT id, created_at FROM contacts WHERE tenant_id = ${t} AND email = 'ov' || i || '@bench-overview.net') c ON true
      CROSS JOIN LATERAL (SELECT (ARRAY['waiting', 'completed', 'completed', 'stopped', 'failed'])[1 + i % 5] AS state) s`
    await sql`INSERT INTO messages (id, tenant_id, sandbox, contact_id, channel, direction, category, origin, status, skip_reason,
        hotel_id, to_address, template_name, error_code, error_message, created_at, sent_at)
      SELECT gen_random_uuid(), ${t}, false, c.id, CASE WHEN i % 10 < 7 THEN 'email' ELSE 'whatsapp' END, 'outbound', 'utility',
        CASE WHEN i % 4 = 0 THEN 'journey' ELSE 'api' END, s.status, CASE WHEN s.status = 'skipped' THEN 'no_email' END,
        (${hotels}::uuid[])[1 + i % ${hotels.length}], c.email, CASE WHEN i % 10 >= 7 THEN 'booking_confirmation' END,
        CASE WHEN s.status = 'failed' THEN '131026' END, CASE WHEN s.status = 'failed' THEN 'Message undeliverable' END,
        ${sql.unsafe(spread("i"))}, CASE WHEN s.status IN ('sent', 'delivered', 'read') THEN ${sql.unsafe(spread("i"))} END
      FROM generate_series(1, ${n}::int) i
      JOIN contacts c ON c.tenant_id = ${t} AND c.email = 'ov' || (1 + i % ${Math.round(n * 0.6)}) || '@bench-overview.net'
      CROSS JOIN LATERAL (SELECT (ARRAY['sent', 'delivered', 'delivered', 'read', 'read', 'failed', 'skipped', 'queued'])[1 + i % 8] AS status) s`
    const [sub] = await sql`
      INSERT INTO webhook_subscriptions (id, tenant_id, sandbox, url, event_types, enabled, max_attempts, initial_backoff_seconds,
        max_backoff_seconds, secret_encrypted)
      VALUES (gen_random_uuid(), ${t}, false, 'https://partner.invalid/overview', ARRAY['reservation.created'], false, 1, 1, 1, '\\x00'::bytea)
      RETURNING id`
    // The attempts of 14 days: as many as the reservations of those days, times three (several event types each).
    await sql`INSERT INTO webhook_deliveries (id, subscription_id, tenant_id, sandbox, event_id, event_type, attempt, outcome,
        response_status, duration_ms, attempted_at)
      SELECT gen_random_uuid(), ${sub!.id}, ${t}, false, 'evt-' || i, 'reservation.created', 1,
        CASE WHEN i % 20 = 0 THEN 'failed' ELSE 'succeeded' END, CASE WHEN i % 20 = 0 THEN 500 ELSE 200 END, 40,
        now() - (i % 14) * interval '1 day' - (i::bigint * 7919 % 86400) * interval '1 second'
      FROM generate_series(1, ${Math.round((n * 3 * 14) / DAYS)}::int) i`
    await sql`DROP TABLE ov_journeys`
    for (const table of ["contacts", "contact_hotels", "reservations", "journey_runs", "messages", "webhook_deliveries"]) {
      // The visibility map too (this machine's PostgreSQL runs with autovacuum off): index-only scans need it.
      await sql.unsafe(`VACUUM ANALYZE ${table}`)
    }
  } finally {
    sql.release()
  }
}
