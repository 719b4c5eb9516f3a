import { DateTime, Effect } from "effect"
import { renderFor } from "../../core/broadcast/render.ts"
import { customFieldDefs } from "../../core/segment/customFields.ts"
import { deterministicId } from "../../core/deterministicId.ts"
import * as Actor from "../runtime/Actor.ts"
import { MessageProtocol } from "../message/protocol.ts"
import { broadcastEvent } from "./events.ts"
import { pace, SEND_WINDOW } from "./lifecycle.ts"
import { BroadcastProtocol } from "./protocol.ts"
import * as Repo from "./repository.ts"

// The units of work of a sending broadcast, one per step envelope: a snapshot chunk, a dispatch chunk, a check
// whether every recipient was answered, and whether the statistics settled. Each is one transaction of the actor.

/** A step handed straight on is also due for the sweep this long after: it only matters if the actor's own is lost. */
const SAFETY_MS = 30_000
/** How often a broadcast waiting for its messages' answers, or for statistics to settle, looks again. */
export const ANSWER_POLL_MS = 1_000
export const SETTLE_POLL_MS = 60_000
/** How soon a dispatch held by the send window looks again (the sweep's interval rounds it up). */
const WINDOW_POLL_MS = 250
/** After this long, a sent broadcast's statistics are final whatever its messages still report (the spec's 72 h). */
export const SETTLE_WINDOW_MS = 72 * 3_600_000

const later = (now: Date, ms: number) => new Date(now.getTime() + ms)

/** Saves a change (the step sequence moves on) and, to go straight on, tells the actor its next step. */
export const advance = Effect.fn("BroadcastActor.advance")(function*(b: Repo.BroadcastRow, change: Omit<Repo.RowChange, "next_step_at">, next: { readonly now: true } | { readonly at: Date | null }) {
  const now = yield* DateTime.nowAsDate
  const seq = yield* Actor.query((tx) => Repo.changeRow(tx, b.id, { ...change, next_step_at: "now" in next ? later(now, SAFETY_MS) : next.at }))
  if ("now" in next) yield* Actor.emit([yield* Actor.tell(BroadcastProtocol, "step", { broadcast_id: b.id, seq }, `broadcast-step:${b.id}:${seq}`)])
})

export const snapshotStep = Effect.fn("BroadcastActor.snapshot")(function*(b: Repo.BroadcastRow) {
  const { scope } = yield* Effect.service(Actor.GroupTransaction)
  const now = yield* DateTime.nowAsDate
  const customFields = yield* Actor.query((tx) => customFieldDefs(tx, scope.tenant_id, scope.sandbox))
  const chunk = yield* Actor.query((tx) => Repo.snapshotChunk(tx, scope, b, { now, customFields }))
  if (chunk.scanned === Repo.SNAPSHOT_CHUNK) return yield* advance(b, { snapshot_cursor: chunk.last }, { now: true })
  const targeted = yield* Actor.query((tx) => Repo.countRecipients(tx, b.id))
  yield* advance(b, { snapshot_cursor: chunk.last ?? b.snapshot_cursor, phase: "dispatching", targeted }, { now: true })
})

/**
 * Hands the next due recipients over to the message actor, at most the pace's chunk: each a send with a message id
 * derived from broadcast, contact and channel (so a repeat finds the message the first made), its row `queued` in the
 * same transaction. The message actor decides each at send time (consent, re-check, cap, quiet hours, deadline).
 */
export const dispatchStep = Effect.fn("BroadcastActor.dispatch")(function*(b: Repo.BroadcastRow) {
  const { chunk, intervalMs } = pace(b.rate_limit_per_minute)
  const now = yield* DateTime.nowAsDate
  // An unpaced broadcast hands over no more than the sender has room for (a paced one's rate is its own bound).
  if (intervalMs === 0 && (yield* Actor.query((tx) => Repo.senderBehind(tx, b.id, SEND_WINDOW - chunk)))) {
    return yield* advance(b, {}, { at: later(now, WINDOW_POLL_MS) })
  }
  const [due, hotel] = yield* Actor.query((tx) => Promise.all([Repo.pickDue(tx, b, chunk, now), Repo.hotelOf(tx, b.hotel_id)]))
  const queued: Array<{ contact_id: string; message_id: string }> = []
  const missing: Array<string> = []
  const sends = []
  for (const r of due) {
    const rendered = renderFor(b.id, b.content, { contact: r, hotel }, now)
    if ("skip" in rendered) {
      missing.push(r.contact_id)
      continue
    }
    const message_id = deterministicId(`broadcast:${b.id}:${r.contact_id}:${b.channel}`)
    queued.push({ contact_id: r.contact_id, message_id })
    sends.push(yield* Actor.tell(MessageProtocol, "send", {
      // A template's category is the one it is registered with (the sender refuses another); a marketing broadcast
      // gates every template as marketing.
      message_id, contact_id: r.contact_id, channel: b.channel, ...(b.channel === "email" ? { category: b.category } : {}),
      origin: "broadcast", broadcast_id: b.id,
      ...(b.hotel_id === null ? {} : { hotel_id: b.hotel_id }),
      ...(rendered.channel === "email"
        ? { subject: rendered.subject, ...(rendered.html === undefined ? {} : { html: rendered.html }), ...(rendered.text === undefined ? {} : { text: rendered.text }) }
        : { template: rendered.template, ...(b.category === "marketing" ? { gate_as: "marketing" as const } : {}) })
    }, `broadcast-send:${message_id}`))
  }
  yield* Actor.query((tx) => Promise.all([Repo.markQueued(tx, b.id, queued, now), Repo.markSkipped(tx, b.id, missing, "missing_template_parameter")]))
  yield* Actor.emit(sends)
  if (due.length === chunk) return yield* advance(b, {}, intervalMs === 0 ? { now: true } : { at: later(now, intervalMs) })
  const nextDue = yield* Actor.query((tx) => Repo.nextDue(tx, b))
  if (nextDue === null) return yield* advance(b, { phase: "settling" }, { at: later(now, ANSWER_POLL_MS) })
  yield* advance(b, {}, { at: new Date(Math.max(nextDue.getTime(), now.getTime() + intervalMs)) })
})

/** Every recipient answered (sent, failed or skipped by the sender): the broadcast is sent, and says so. */
export const settleStep = Effect.fn("BroadcastActor.settle")(function*(b: Repo.BroadcastRow) {
  const { scope, subject } = yield* Effect.service(Actor.GroupTransaction)
  const now = yield* DateTime.nowAsDate
  if ((yield* Actor.query((tx) => Repo.unanswered(tx, b.id))) > 0) return yield* advance(b, {}, { at: later(now, ANSWER_POLL_MS) })
  const rows = yield* Actor.query((tx) => Repo.outcomes(tx, b.id))
  yield* Actor.emit([broadcastEvent(subject, scope, "broadcast.sent", b, { sent_at: now, completed_at: null }, rows)])
  yield* advance(b, { status: "sent", phase: null, sent_at: now }, { now: true })
})

/** A sent broadcast's statistics settled (no message status can still move, or the window passed): completed. */
export const completeStep = Effect.fn("BroadcastActor.complete")(function*(b: Repo.BroadcastRow) {
  const { scope, subject } = yield* Effect.service(Actor.GroupTransaction)
  const now = yield* DateTime.nowAsDate
  const sentAt = b.sent_at ?? now
  const windowEnd = sentAt.getTime() + SETTLE_WINDOW_MS
  if (now.getTime() < windowEnd && (yield* Actor.query((tx) => Repo.unsettled(tx, b.id, b.channel))) > 0) {
    return yield* advance(b, {}, { at: new Date(Math.min(windowEnd, now.getTime() + SETTLE_POLL_MS)) })
  }
  const rows = yield* Actor.query((tx) => Repo.outcomes(tx, b.id))
  yield* Actor.emit([broadcastEvent(subject, scope, "broadcast.completed", b, { sent_at: sentAt, completed_at: now }, rows)])
  yield* advance(b, { completed_at: now }, { at: null })
})
