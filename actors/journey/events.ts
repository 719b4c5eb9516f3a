import { deterministicId } from "../../core/deterministicId.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { OutboxMessage } from "../runtime/Actor.ts"
import type { ContactFacts } from "./facts.ts"
import type { Run } from "./run.ts"
import { WebhookCommands } from "../../streams/topics.ts"

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
): OutboxMessage =>
  WebhookCommands.message(deterministicId(`${type}:${run.id}`), subject("cmd", `webhook.${type}`), {
    ...scope,
    // A run announced as ended has its end time (state.ts ends it before announcing).
    occurred_at: iso(type === "journey.started" ? run.started_at : run.ended_at ?? run.started_at)!,
    event_type: type,
    data: {
      journey: { id: run.journey_id, name: journey.name, version: run.version },
      run: runData(run),
      ...(type === "journey.completed" ? { outcome: run.state === "completed" ? "completed" : "stopped" } : {}),
      contact: { id: run.contact_id, email: contact?.email ?? null, phone: contact?.phone ?? null },
      trigger: { event: run.trigger.event_name, event_id: run.trigger.event_id, origin: run.trigger.origin, source: run.trigger.source }
    }
  })
