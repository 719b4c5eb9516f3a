import type { Tx } from "../../core/db/Database.ts"
import type { Envelope } from "../../streams/envelope.ts"
import type { ActorType } from "../../streams/subjects.ts"

/** A message for a later consumer, written in the state transaction and published after commit. */
export interface OutboxMessage {
  readonly id: string
  readonly subject: string
  readonly payload: unknown
}

export interface Applied {
  readonly reply: { readonly status: number; readonly body: unknown }
  readonly outbox: ReadonlyArray<OutboxMessage>
}

export interface ActorContext {
  readonly namespace: string
}

/** One actor type: applies an envelope to its key's state inside the given transaction. */
export interface ActorHandler {
  readonly actor: ActorType
  readonly apply: (tx: Tx, envelope: Envelope, ctx: ActorContext) => Promise<Applied>
}

/** An actor type from its envelope handlers, by envelope type; an unknown type is a defect (dead-lettered). */
export const defineActor = <H extends Record<string, (tx: Tx, envelope: Envelope<never>, ctx: ActorContext) => Promise<Applied>>>(
  actor: ActorType,
  handlers: H
): ActorHandler => ({
  actor,
  apply: (tx, envelope, ctx) => {
    const handle = handlers[envelope.type]
    if (!handle) throw new Error(`${actor} actor: unknown envelope type ${envelope.type}`)
    return handle(tx, envelope as Envelope<never>, ctx)
  }
})
