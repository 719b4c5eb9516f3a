import type { BroadcastStatus } from "../../schemas/broadcast.ts"
import type { BroadcastAction } from "./protocol.ts"

// The pure rules of a broadcast's lifecycle: what an action does in each status, and how fast dispatch goes.

export interface Refusal {
  readonly status: 409 | 422
  readonly code: string
  readonly field: string
  readonly message: string
}

/** Where an action leads from a status: a new status, `same` (a repeat: answered as it is), or a refusal. */
export const next = (action: BroadcastAction, status: BroadcastStatus): BroadcastStatus | "same" | Refusal => {
  const conflict = (message: string): Refusal => ({ status: 409, code: "BROADCAST_STATUS", field: "status", message })
  switch (action) {
    case "schedule":
      return status === "draft" ? "scheduled" : status === "scheduled" ? "same" : conflict(`A ${status} broadcast cannot be scheduled: only a draft`)
    case "send":
      return status === "draft" || status === "scheduled" ? "sending"
        : status === "sending" ? "same"
        : conflict(status === "paused" ? "A paused broadcast goes on with resume" : `A ${status} broadcast cannot be sent`)
    case "pause":
      return status === "sending" ? "paused" : status === "paused" ? "same" : conflict(`Only a sending broadcast pauses; this one is ${status}`)
    case "resume":
      return status === "paused" ? "sending" : status === "sending" ? "same" : conflict(`Only a paused broadcast resumes; this one is ${status}`)
    case "cancel":
      return status === "cancelled" ? "same"
        : status === "sent" || status === "failed" ? conflict(`A ${status} broadcast cannot be cancelled`)
        : "cancelled"
  }
}

/** Handed over in one dispatch step at most (one transaction: the recipients' rows and the message actor's commands). */
export const MAX_CHUNK = 500

/**
 * How many sends one dispatch step hands over and how long until the next, for a rate in messages per minute: the
 * smallest chunk that keeps steps at least a second apart (so a slow rate is spread, not sent in one burst a minute),
 * capped at MAX_CHUNK with steps closer together for fast rates. No rate: MAX_CHUNK, straight on.
 */
export const pace = (ratePerMinute: number | null): { readonly chunk: number; readonly intervalMs: number } => {
  if (ratePerMinute === null) return { chunk: MAX_CHUNK, intervalMs: 0 }
  const chunk = Math.max(1, Math.min(MAX_CHUNK, Math.ceil(ratePerMinute / 60)))
  return { chunk, intervalMs: Math.round((chunk * 60_000) / ratePerMinute) }
}

/**
 * An unpaced broadcast's sends waiting at the sender at most (handed over, not yet sent): the next chunk waits while
 * more would be. Without it dispatch handed over 94,000 sends in two minutes while 37,000 left (the worker divided
 * itself between making messages and sending them), and every email after them, a booking confirmation too, waited
 * behind the whole queue. At 400 sends a second this is 5 s of sending; a step looks again every sweep (500 ms).
 */
export const SEND_WINDOW = 2_000

/** Whether a deadline has passed at `now` (no deadline: never). */
export const pastDeadline = (deadline: Date | null, now: Date) => deadline !== null && now.getTime() > deadline.getTime()
