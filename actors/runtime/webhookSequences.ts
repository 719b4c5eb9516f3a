import type { Tx } from "../../core/db/Database.ts"
import { log } from "../../core/observability/log.ts"
import { Metrics } from "../../core/observability/metrics.ts"
import { assignSequences } from "../../core/webhook/sequence.ts"
import { webhookBodyProblem } from "../../schemas/webhookPayloads.ts"
import type { OutboxMessage } from "./Actor.ts"

interface CommandPayload {
  readonly tenant_id: string
  readonly sandbox: boolean
  readonly occurred_at: string
  readonly event_type: string
  readonly data: unknown
}

/**
 * The body the command will be delivered as, checked against its event type's schema (schemas/webhookPayloads.ts).
 * A body off its schema is a bug of ours: it is logged (the event type only, never the values: they are a guest's
 * data) and counted, and still written, since refusing it would fail the partner's write the event came from.
 */
const checkBody = (m: OutboxMessage, c: CommandPayload, sequence: number) => {
  if (webhookBodyProblem(c.event_type, { event_id: m.id, event_type: c.event_type, sequence, timestamp: c.occurred_at, data: c.data }) === undefined) return
  Metrics.webhookPayloadInvalid.inc({ event_type: c.event_type })
  log("error", "webhook payload off its schema", { event_type: c.event_type })
}

const commandOf = (m: OutboxMessage): CommandPayload | undefined =>
  m.subject.includes(".cmd.webhook.") && typeof (m.payload as Partial<CommandPayload> | null)?.event_type === "string"
    ? m.payload as CommandPayload
    : undefined

/**
 * The messages with every webhook command's `sequence` set, in the transaction about to write them to the outbox
 * (every path that writes one calls this: the actors' group transaction, the sweeps and scans). Others unchanged.
 */
export const withWebhookSequences = async <M extends OutboxMessage>(tx: Tx, messages: ReadonlyArray<M>): Promise<Array<M>> => {
  const commands = messages.filter((m) => commandOf(m) !== undefined)
  if (commands.length === 0) return [...messages]
  const sequences = await assignSequences(tx, commands.map((m) => commandOf(m)!))
  const sequenceOf = new Map(commands.map((m, i) => [m, sequences[i]!]))
  for (const [m, sequence] of sequenceOf) checkBody(m, commandOf(m)!, sequence)
  return messages.map((m) => {
    const sequence = sequenceOf.get(m)
    return sequence === undefined ? m : { ...m, payload: { ...(m.payload as object), sequence } }
  })
}
