import type { Tx } from "../../core/db/Database.ts"
import { assignSequences } from "../../core/webhook/sequence.ts"
import type { OutboxMessage } from "./Actor.ts"

interface CommandPayload {
  readonly tenant_id: string
  readonly sandbox: boolean
  readonly event_type: string
  readonly data: unknown
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
  return messages.map((m) => {
    const sequence = sequenceOf.get(m)
    return sequence === undefined ? m : { ...m, payload: { ...(m.payload as object), sequence } }
  })
}
