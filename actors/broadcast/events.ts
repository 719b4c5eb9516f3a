import { countsOf } from "../../core/broadcast/counts.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import { WebhookCommands } from "../../streams/topics.ts"
import type { OutboxMessage } from "../runtime/Actor.ts"
import type { BroadcastRow, OutcomeRow } from "./repository.ts"

type Subject = (kind: "cmd", name: string) => string

const iso = (d: Date | null | undefined) => (d == null ? null : new Date(d).toISOString())

/**
 * The `broadcast.sent` or `broadcast.completed` webhook command: the broadcast and its counts by outcome. Its id is
 * one per broadcast and event, so a step applied again (it is not: the inbox) or republished is delivered once.
 */
export const broadcastEvent = (
  subject: Subject, scope: TenantScope, type: "broadcast.sent" | "broadcast.completed", b: BroadcastRow,
  at: { readonly sent_at: Date; readonly completed_at: Date | null }, rows: ReadonlyArray<OutcomeRow>
): OutboxMessage => {
  const { pending: _p, queued: _q, ...counts } = countsOf(rows)
  return WebhookCommands.message(`${type}:${b.id}`, subject("cmd", `webhook.${type}`), {
    ...scope,
    occurred_at: (at.completed_at ?? at.sent_at).toISOString(),
    event_type: type,
    data: {
      broadcast: {
        id: b.id, name: b.name, channel: b.channel, category: b.category, status: "sent",
        started_at: iso(b.started_at), sent_at: at.sent_at.toISOString(), completed_at: iso(at.completed_at)
      },
      counts
    }
  })
}
