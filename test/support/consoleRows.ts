import { randomUUID } from "node:crypto"
import type postgres from "postgres"

// Rows written as the actors write them, for the console's reads (messages, journey runs, webhook attempts): a read
// test states exactly what is stored (times, statuses, provider errors) without waiting on providers and timers.

export interface Scope { readonly tenant_id: string; readonly sandbox?: boolean }

export interface MessageRow {
  readonly contact_id: string
  readonly channel?: "email" | "whatsapp"
  readonly direction?: "outbound" | "inbound"
  readonly status?: string
  readonly skip_reason?: string | null
  readonly hotel_id?: string | null
  readonly template_name?: string | null
  readonly journey_run_id?: string | null
  readonly broadcast_id?: string | null
  readonly error_code?: string | null
  readonly error_message?: string | null
  readonly created_at?: string
}

/** One message row (and its status history row); its id. */
export const insertMessage = async (sql: postgres.Sql, scope: Scope, m: MessageRow): Promise<string> => {
  const id = randomUUID()
  const status = m.status ?? "delivered"
  const created = m.created_at ?? new Date().toISOString()
  await sql`INSERT INTO messages (id, tenant_id, sandbox, contact_id, channel, direction, category, origin, status, skip_reason, hotel_id,
      to_address, template_name, template_language, journey_run_id, broadcast_id, error_code, error_message, created_at, updated_at)
    VALUES (${id}, ${scope.tenant_id}, ${scope.sandbox ?? false}, ${m.contact_id}, ${m.channel ?? "email"}, ${m.direction ?? "outbound"},
      ${(m.direction ?? "outbound") === "outbound" ? "utility" : null}, ${m.journey_run_id ? "journey" : m.broadcast_id ? "broadcast" : "api"},
      ${status}, ${status === "skipped" ? m.skip_reason ?? "no_email" : null}, ${m.hotel_id ?? null}, 'guest@example.com',
      ${m.template_name ?? null}, ${m.template_name ? "es" : null}, ${m.journey_run_id ?? null}, ${m.broadcast_id ?? null},
      ${m.error_code ?? null}, ${m.error_message ?? null}, ${created}, ${created})`
  await sql`INSERT INTO message_statuses (message_id, tenant_id, sandbox, status, error_code, occurred_at, applied)
    VALUES (${id}, ${scope.tenant_id}, ${scope.sandbox ?? false}, ${status}, ${m.error_code ?? null}, ${created}, true)`
  return id
}

/** An active journey with one saved version; its id. */
export const insertJourney = async (sql: postgres.Sql, scope: Scope, name = `Journey ${randomUUID().slice(0, 8)}`): Promise<string> => {
  const id = randomUUID()
  await sql`INSERT INTO journey_definitions (id, tenant_id, sandbox, name, trigger_event_type, status, trigger_type)
    VALUES (${id}, ${scope.tenant_id}, ${scope.sandbox ?? false}, ${name}, 'booking.created', 'active', 'event')`
  await sql`INSERT INTO journey_versions (journey_id, version, tenant_id, sandbox, definition)
    VALUES (${id}, 1, ${scope.tenant_id}, ${scope.sandbox ?? false}, ${sql.json({ name, trigger: { type: "event", event: "booking.created" }, steps: [{ id: "w", type: "wait", duration: "PT1H" }] })})`
  return id
}

/** One run of a journey in the given state; its id. */
export const insertRun = async (
  sql: postgres.Sql, scope: Scope, o: { readonly journey_id: string; readonly contact_id: string; readonly state?: string; readonly hotel_id?: string | null; readonly started_at?: string }
): Promise<string> => {
  const id = randomUUID()
  const state = o.state ?? "completed"
  const started = o.started_at ?? new Date().toISOString()
  const ended = ["completed", "stopped", "failed"].includes(state) ? started : null
  await sql`INSERT INTO journey_runs (id, tenant_id, sandbox, journey_id, version, contact_id, scope, hotel_id, state, wake_at, trigger, started_at,
      ended_at, updated_at)
    VALUES (${id}, ${scope.tenant_id}, ${scope.sandbox ?? false}, ${o.journey_id}, 1, ${o.contact_id}, ${`run:${id}`}, ${o.hotel_id ?? null}, ${state},
      ${state === "waiting" ? new Date(Date.now() + 86_400_000).toISOString() : null}, '{}'::jsonb, ${started}, ${ended}, now())`
  return id
}

/** A contact row of the tenant (no reservation, no consent); its id. */
export const insertContact = async (sql: postgres.Sql, scope: Scope, o: { readonly created_at?: string; readonly hotel_id?: string } = {}): Promise<string> => {
  const id = randomUUID()
  const created = o.created_at ?? new Date().toISOString()
  await sql`INSERT INTO contacts (id, tenant_id, sandbox, email, first_name, created_at, updated_at)
    VALUES (${id}, ${scope.tenant_id}, ${scope.sandbox ?? false}, ${`c${id.slice(0, 12)}@example.com`}, 'Row', ${created}, ${created})`
  if (o.hotel_id !== undefined) {
    await sql`INSERT INTO contact_hotels (contact_id, hotel_id, tenant_id, sandbox, first_seen_at, last_seen_at)
      VALUES (${id}, ${o.hotel_id}, ${scope.tenant_id}, ${scope.sandbox ?? false}, ${created}, ${created})`
  }
  return id
}
