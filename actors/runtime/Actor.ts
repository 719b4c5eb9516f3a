import { Context, Effect } from "effect"
import { databaseFailure, type DatabaseFailure } from "../../core/db/DatabaseFailure.ts"
import type { Tx } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { ActorProtocol, ErrorOf, Messages, PayloadOf, SuccessOf } from "../../streams/ActorProtocol.ts"

/** A message for a later consumer, written in the state transaction and published after commit. */
export interface OutboxMessage {
  readonly id: string
  readonly subject: string
  readonly payload: unknown
}

/**
 * What a handler runs inside: the transaction of the group its envelope is applied in (already confined to the
 * envelope's tenant by row-level security), the envelope's tenant scope, and the outbox its effects go to.
 */
export class ActorTransaction extends Context.Service<ActorTransaction, {
  readonly tx: Tx
  readonly scope: TenantScope
  readonly envelopeId: string
  /** Outbox subjects for the deployment's namespace: `cmd.webhook.contact.created`, `evt.booking.created`, ... */
  readonly subject: (kind: "cmd" | "evt", name: string) => string
  readonly emit: (message: OutboxMessage) => void
}>()("app/actors/ActorTransaction") {}

/** Statements on the actor's transaction (independent ones pipelined with Promise.all); failures are typed. */
export const query = <A>(f: (tx: Tx, scope: TenantScope) => Promise<A>): Effect.Effect<A, DatabaseFailure, ActorTransaction> =>
  Effect.flatMap(Effect.service(ActorTransaction), (t) => Effect.tryPromise({ try: () => f(t.tx, t.scope), catch: databaseFailure }))

/** Appends outbox messages: they commit with the state change and are published after it. */
export const emit = (messages: ReadonlyArray<OutboxMessage>): Effect.Effect<void, never, ActorTransaction> =>
  Effect.map(Effect.service(ActorTransaction), (t) => {
    for (const m of messages) t.emit(m)
  })

export const currentScope: Effect.Effect<TenantScope, never, ActorTransaction> = Effect.map(Effect.service(ActorTransaction), (t) => t.scope)

/** One handler per message of the protocol: a domain value, a domain error, or a database failure (retried). */
export type Handlers<M extends Messages> = {
  readonly [K in keyof M]: (payload: PayloadOf<M[K]>) => Effect.Effect<SuccessOf<M[K]>, ErrorOf<M[K]> | DatabaseFailure, ActorTransaction>
}

/** An actor type as the worker runs it: its protocol and its handlers. */
export interface Actor<Name extends string = string, M extends Messages = Messages> {
  readonly protocol: ActorProtocol<Name, M>
  readonly handlers: Handlers<M>
}

/** Any actor, as the runtime and the registry hold them (handlers are only ever called with their own payloads). */
export type AnyActor = Actor<string, any>

export const make = <Name extends string, M extends Messages>(protocol: ActorProtocol<Name, M>, handlers: Handlers<M>): Actor<Name, M> =>
  ({ protocol, handlers })
