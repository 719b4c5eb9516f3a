import type { BroadcastCounts } from "../../schemas/broadcast.ts"
import { isBroadcastSkipReason, recipientSkipReason } from "../message/broadcastGate.ts"

// A broadcast's counts from its recipients grouped by status and reason (the recipient's own, or its message's once
// handed over): read when asked, never kept as counters on the broadcast row (no hot row while messages report).

/**
 * A stored skip reason as the broadcast's recipients say it: a message's through the sender's mapping (every kind of
 * missing consent is `no_consent`), a recipient's own (cancelled, deadline_passed, missing_template_parameter) as it is.
 */
export const recipientReason = (reason: string): string => (isBroadcastSkipReason(reason) ? recipientSkipReason(reason) : reason)

export interface StatusCount {
  readonly status: string
  readonly reason: string | null
  readonly n: number
}

export const countsOf = (rows: ReadonlyArray<StatusCount>): BroadcastCounts => {
  const counts = { targeted: 0, pending: 0, queued: 0, sent: 0, delivered: 0, read: 0, failed: 0, skipped: 0 }
  const skipped: Record<string, number> = {}
  for (const r of rows) {
    counts.targeted += r.n
    if (r.status in counts) counts[r.status as keyof typeof counts] += r.n
    if (r.status === "skipped" && r.reason !== null) {
      const reason = recipientReason(r.reason)
      skipped[reason] = (skipped[reason] ?? 0) + r.n
    }
  }
  return { ...counts, skipped_by_reason: skipped }
}
