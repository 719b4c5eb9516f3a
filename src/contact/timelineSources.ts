import { errorMeaningSql } from "../../core/message/errorMeaningSql.ts"
import { isoTime, jsonObject as obj } from "./sqlJson.ts"

/**
 * The sources of a contact's timeline, each one SELECT giving `(at, kind, id, data)` for the contact `$1` of the
 * scope (`$2` tenant, `$3` sandbox), walked newest first by an index that starts with the contact (migration 025 adds
 * those that were missing). `data` is built here as the kind's typed object (schemas/timeline.ts), a json value with the
 * schema's keys in its order; times in it are ISO strings.
 *
 * Sources without a contact_id column (or whose contact_id is not the contact's), and how they are linked:
 * - booking events name the reservation's holder: a companion's are found through reservation_guests;
 * - journey_run_steps: through their run (journey_runs.contact_id), all runs of the contact;
 * - loyalty_entries: through the loyalty member of the contact's email (loyalty_members is keyed by tenant, mode and
 *   email, read from the contact's row in the same statement);
 * - message_statuses: a message's chain, read for the rows its source gives (at most the page size plus one).
 * - webhooks: the bodies emitted to each subscription (webhook_events, kept 14 days) name their contact in
 *   `contact_id`, set by the fan-out from the event's data (`contactOf`, core/webhook/objectKey.ts).
 */
export interface TimelineSource {
  /** The row time, as an SQL expression of the source's alias. */
  readonly at: string
  /** The kind, a literal or (for sources of two kinds) an expression. */
  readonly kind: string
  /** The item id as text: unique within the kind. */
  readonly id: string
  readonly data: string
  readonly from: string
  readonly where: string
}

const t = isoTime

/** A message's status chain, oldest first, at most 20 (index message_statuses (message_id, id)). */
const STATUS_CHAIN = `(SELECT coalesce(json_agg(${obj({ status: "s.status", at: isoTime("s.occurred_at"), error_code: "s.error_code" })} ORDER BY s.id), '[]'::json)
  FROM (SELECT status, occurred_at, error_code, id FROM message_statuses WHERE message_id = m.id ORDER BY id LIMIT 20) s)`

const JOURNEY_NAME = "(SELECT j.name FROM journey_definitions j WHERE j.id = r.journey_id)"

const BOOKING = `e.type IN ('booking.created', 'booking.updated', 'booking.cancelled', 'guest.checked_in', 'guest.checked_out') AND e.reservation_id IS NOT NULL`

const RESERVATION_DATA = obj({
  event_type: "e.type", reservation_id: "e.reservation_id", external_reservation_id: "e.payload->>'external_reservation_id'",
  hotel_id: "e.hotel_id", status: "e.payload->>'status'", check_in: "e.payload->>'check_in'", check_out: "e.payload->>'check_out'"
})

export const TIMELINE_SOURCES: ReadonlyArray<TimelineSource> = [
  {
    at: "e.created_at",
    kind: `CASE WHEN ${BOOKING} THEN 'reservation' ELSE 'event' END`,
    id: "e.id::text",
    data: `CASE WHEN ${BOOKING} THEN ${RESERVATION_DATA} ELSE ${obj({ type: "e.type", source: "e.source", hotel_id: "e.hotel_id", reservation_id: "e.reservation_id" })} END`,
    from: "events e",
    where: "e.contact_id = $1 AND e.tenant_id = $2 AND e.sandbox = $3"
  },
  {
    // The booking events of reservations the contact is a companion on (the events above name the holder only).
    at: "e.created_at",
    kind: "'reservation'",
    id: "e.id::text",
    data: RESERVATION_DATA,
    from: "events e",
    where: `e.reservation_id IN (SELECT g.reservation_id FROM reservation_guests g WHERE g.contact_id = $1 AND g.tenant_id = $2 AND g.sandbox = $3)
      AND e.tenant_id = $2 AND e.sandbox = $3 AND e.contact_id IS DISTINCT FROM $1 AND ${BOOKING}`
  },
  {
    at: "w.received_at",
    kind: "'website_event'",
    id: "w.id::text",
    data: obj({
      event: "w.event", source_id: "w.source_id", hotel_id: "w.hotel_id", cart_id: "w.cart_id", session_id: "w.session_id",
      occurred_at: t("w.occurred_at")
    }),
    from: "website_events w",
    where: "w.tenant_id = $2 AND w.sandbox = $3 AND w.contact_id = $1"
  },
  {
    at: "d.ts",
    kind: "'cdp_event'",
    id: "d.id::text",
    data: obj({ type: "d.type", url: "d.url", title: "d.title", visitor_id: "d.visitor_id", session_id: "d.session_id" }),
    from: "cdp_events d",
    where: "d.tenant_id = $2 AND d.sandbox = $3 AND d.contact_id = $1"
  },
  {
    at: "m.created_at",
    kind: "CASE m.direction WHEN 'inbound' THEN 'inbound_message' ELSE 'message' END",
    id: "m.id::text",
    data: `CASE m.direction WHEN 'inbound' THEN ${obj({ channel: "m.channel", conversation_id: "m.conversation_id", text: "m.body_text" })}
      ELSE ${obj({
        channel: "m.channel", category: "m.category", origin: "m.origin", status: "m.status", skip_reason: "m.skip_reason",
        template_name: "m.template_name", subject: "m.subject", error_code: "m.error_code",
        error_message: "m.error_message", error_meaning: errorMeaningSql("m.channel", "m.error_code", "m.error_message"),
        journey_run_id: "m.journey_run_id",
        statuses: STATUS_CHAIN
      })} END`,
    from: "messages m",
    where: "m.contact_id = $1 AND m.tenant_id = $2 AND m.sandbox = $3"
  },
  {
    at: "r.started_at",
    kind: "'journey_entered'",
    id: "r.id::text",
    data: obj({
      journey_id: "r.journey_id", journey_name: JOURNEY_NAME, run_id: "r.id", version: "r.version", scope: "r.scope", hotel_id: "r.hotel_id",
      reservation_id: "r.reservation_id"
    }),
    from: "journey_runs r",
    where: "r.contact_id = $1 AND r.tenant_id = $2 AND r.sandbox = $3"
  },
  {
    at: "s.at",
    kind: "'journey_step'",
    id: "s.run_id::text || ':' || lpad(s.seq::text, 6, '0')",
    data: obj({
      journey_id: "r.journey_id", journey_name: JOURNEY_NAME, run_id: "r.id", step_id: "s.step_id", step_type: "s.step_type", outcome: "s.outcome",
      reason: "s.reason", message_id: "s.message_id"
    }),
    from: "journey_runs r JOIN journey_run_steps s ON s.run_id = r.id",
    where: "r.contact_id = $1 AND r.tenant_id = $2 AND r.sandbox = $3"
  },
  {
    at: "r.ended_at",
    kind: "'journey_ended'",
    id: "r.id::text",
    data: obj({ journey_id: "r.journey_id", journey_name: JOURNEY_NAME, run_id: "r.id", state: "r.state", reason: "coalesce(r.exit_reason, r.error->>'message')" }),
    from: "journey_runs r",
    where: "r.contact_id = $1 AND r.tenant_id = $2 AND r.sandbox = $3 AND r.ended_at IS NOT NULL"
  },
  {
    at: "coalesce(k.started_at, k.created_at)",
    kind: "'call'",
    id: "k.id::text",
    data: obj({
      provider: "k.provider", call_id: "k.call_id", direction: "k.direction", status: "k.status", answered: "k.answered",
      duration_seconds: "k.duration_seconds", outcome: "k.outcome"
    }),
    from: "calls k",
    where: "k.contact_id = $1 AND k.tenant_id = $2 AND k.sandbox = $3"
  },
  {
    at: "l.created_at",
    kind: "'loyalty_movement'",
    id: "l.entry_id::text",
    data: obj({
      member_id: "l.member_id", movement: "l.kind", status: "l.status", points: "l.points", pending_points: "l.pending_points",
      balance_after: "l.balance_after", reason: "l.reason", reservation_id: "l.reservation_id"
    }),
    from: "loyalty_entries l",
    where: "l.member_id IN (SELECT member_id FROM loyalty_members WHERE tenant_id = $2 AND sandbox = $3 AND email = " +
      "(SELECT email FROM contacts WHERE id = $1 AND tenant_id = $2 AND sandbox = $3))"
  },
  {
    at: "cr.recorded_at",
    kind: "'consent_change'",
    id: "lpad(cr.id::text, 20, '0')",
    data: obj({ channel: "cr.channel", granted: "cr.granted", source: "cr.source", captured_at: t("cr.captured_at") }),
    from: "consent_records cr",
    where: "cr.contact_id = $1 AND cr.tenant_id = $2 AND cr.sandbox = $3"
  },
  {
    at: "wh.emitted_at",
    kind: "'webhook'",
    id: "wh.event_id || ':' || wh.subscription_id::text",
    data: obj({
      event_type: "wh.event_type", event_id: "wh.event_id", subscription_id: "wh.subscription_id",
      sequence: "coalesce((wh.body::jsonb->>'sequence')::bigint, 0)"
    }),
    from: "webhook_events wh",
    where: "wh.contact_id = $1 AND wh.tenant_id = $2 AND wh.sandbox = $3"
  }
]
