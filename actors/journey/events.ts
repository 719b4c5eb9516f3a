import { deterministicId } from "../../core/deterministicId.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { OutboxMessage } from "../runtime/Actor.ts"
import type { ContactFacts } from "./facts.ts"
import type { Run } from "./run.ts"

// Payloads of the `journey.*` webhooks (documented in the README): the journey, the run as it is after the change,
// the contact and what started the run.

type Subject = (kind: "cmd", name: string) => string

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

export const runData = (r: Run) => ({
  id: r.id,
  state: r.state,
  scope: r.scope,
  hotel_id: r.hotel_id,
  reservation_id: r.reservation_id,
  started_at: iso(r.started_at),
  ended_at: iso(r.ended_at),
  exit_reason: r.exit_reason,
  error: r.error
})

export type JourneyEventType = "journey.started" | "journey.completed" | "journey.failed"

/** The webhook command for a run's start or end (its id: one per run and event type, so a republish is deduplicated). */
export const journeyEvent = (
  subject: Subject, scope: TenantScope, type: JourneyEventType, run: Run, journey: { name: string }, contact: ContactFacts | undefined
): OutboxMessage => ({
  id: deterministicId(`${type}:${run.id}`),
  subject: subject("cmd", `webhook.${type}`),
  payload: {
    ...scope,
    occurred_at: iso(type === "journey.started" ? run.started_at : run.ended_at),
    event_type: type,
    data: {
      journey: { id: run.journey_id, name: journey.name, version: run.version },
      run: runData(run),
      ...(type === "journey.completed" ? { outcome: run.state === "completed" ? "completed" : "stopped" } : {}),
      contact: { id: run.contact_id, email: contact?.email ?? null, phone: contact?.phone ?? null },
      trigger: { event: run.trigger.event_name, event_id: run.trigger.event_id, origin: run.trigger.origin, source: run.trigger.source }
    }
  }
})
