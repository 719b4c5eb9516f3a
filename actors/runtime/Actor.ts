import { Clock, Context, Effect, type Result } from "effect"
import { databaseFailure, type DatabaseFailure } from "../../core/db/DatabaseFailure.ts"
import type { Tx } from "../../core/db/Database.ts"
import type { PrivacyKey } from "../../core/privacy/PrivacyKey.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { ActorMessage, ActorProtocol, ErrorOf, Messages, PayloadOf, SuccessOf } from "../../streams/ActorProtocol.ts"
import { told } from "../../streams/tell.ts"

/** A message for a later consumer, written in the state transaction and published after commit. */
export interface OutboxMessage {
  readonly id: string
  readonly subject: string
  readonly payload: unknown
}

/**
 * The transaction a group of envelopes is applied in, confined to one tenant by row-level security while the
 * handlers of that tenant's envelopes run, and the deployment's outbox subjects.
 */
export class GroupTransaction extends Context.Service<GroupTransaction, {
  readonly tx: Tx
  readonly scope: TenantScope
  /** Outbox subjects for the deployment's namespace: `cmd.webhook.contact.created`, `evt.booking.created`, ... */
  readonly subject: (kind: "cmd" | "evt", name: string) => string
  /** Where another actor's messages go: the deployment's namespace and partition count. */
  readonly target: { readonly namespace: string; readonly partitions: number }
}>()("app/actors/GroupTransaction") {}

/** What a one-envelope handler runs inside, beside the group's transaction: its envelope and its outbox. */
export class ActorTransaction extends Context.Service<ActorTransaction, {
  readonly envelopeId: string
  /** When the envelope was sent (ms, the sender's clock): the command's time, the same on every redelivery. */
  readonly sentAt: number
  readonly emit: (message: OutboxMessage) => void
}>()("app/actors/ActorTransaction") {}

/** Statements on the group's transaction (independent ones pipelined with Promise.all); failures are typed. */
export const query = <A>(f: (tx: Tx, scope: TenantScope) => Promise<A>): Effect.Effect<A, DatabaseFailure, GroupTransaction> =>
  Effect.flatMap(Effect.service(GroupTransaction), (t) => Effect.tryPromise({ try: () => f(t.tx, t.scope), catch: databaseFailure }))

/** Appends outbox messages: they commit with the state change and are published after it. */
export const emit = (messages: ReadonlyArray<OutboxMessage>): Effect.Effect<void, never, ActorTransaction> =>
  Effect.map(Effect.service(ActorTransaction), (t) => {
    for (const m of messages) t.emit(m)
  })

/**
 * A message for another actor (or this one, later), written to the outbox with the state change and published after
 * commit; `id` is its envelope id, deterministic where a resend must apply once.
 */
export const tell = <Name extends string, M extends Messages, K extends keyof M & string>(
  protocol: ActorProtocol<Name, M>, tag: K, payload: PayloadOf<M[K]>, id: string
): Effect.Effect<OutboxMessage, never, GroupTransaction> =>
  Effect.zipWith(Effect.service(GroupTransaction), Clock.currentTimeMillis, (t, now) => told(t.target, protocol, tag, t.scope, payload, id, now))

/**
 * The process's services a handler may use beside its transaction, provided by the worker (actors/runtime/Worker.ts
 * takes them from the composition root): the privacy key, so the message sender can look a contact's identifiers up
 * among the privacy suppressions (stored only as keyed hashes).
 */
export type ActorServices = PrivacyKey

/** A handler of one envelope: a domain value, a domain error, or a database failure (the group is retried). */
export type Handler<M extends ActorMessage> = (
  payload: PayloadOf<M>
) => Effect.Effect<SuccessOf<M>, ErrorOf<M> | DatabaseFailure, ActorTransaction | GroupTransaction | ActorServices>

/** One envelope of a wave: its id (kept with what it writes) and its payload. */
export interface WaveItem<P> {
  readonly envelopeId: string
  readonly payload: P
}

/** What one envelope of a wave answered, and the outbox messages it wrote. */
export interface WaveResult<S, E> {
  readonly result: Result.Result<S, E>
  readonly outbox: ReadonlyArray<OutboxMessage>
}

/**
 * A set-based handler: the envelopes of a wave (distinct keys, one tenant; each key's next envelope waits for the
 * next wave) applied together with multi-row statements, one result per envelope, in order.
 */
export interface WaveHandler<M extends ActorMessage> {
  readonly wave: (
    items: ReadonlyArray<WaveItem<PayloadOf<M>>>
  ) => Effect.Effect<ReadonlyArray<WaveResult<SuccessOf<M>, ErrorOf<M>>>, DatabaseFailure, GroupTransaction | ActorServices>
}

/** One handler per message of the protocol, either per envelope or set-based per wave. */
export type Handlers<M extends Messages> = {
  readonly [K in keyof M]: Handler<M[K]> | WaveHandler<M[K]>
}

export const isWaveHandler = <M extends ActorMessage>(h: Handler<M> | WaveHandler<M>): h is WaveHandler<M> =>
  typeof h === "object" && "wave" in h

/** An actor type as the worker runs it: its protocol and its handlers. */
export interface Actor<Name extends string = string, M extends Messages = Messages> {
  readonly protocol: ActorProtocol<Name, M>
  readonly handlers: Handlers<M>
  /**
   * Lanes (concurrent group transactions) this actor type gets at least, whatever GEP_APPLY_LANES says: an actor
   * whose handlers are per envelope, with several round trips each, gains from applying groups side by side.
   */
  readonly minLanes?: number
  /**
   * Applies each wave's envelopes one after another, in wave order, whatever their message types (by default the
   * message types of a wave run concurrently on the transaction's connection). For an actor whose writes reach across
   * its keys, so that each write must see the ones before it (B2B: the account tree and code uniqueness span
   * accounts); its handlers take whatever lock spans those keys themselves. A set-based handler then gets its
   * envelopes one at a time.
   */
  readonly serial?: boolean
}

/** Any actor, as the runtime and the registry hold them (handlers are only ever called with their own payloads). */
export type AnyActor = Actor<string, any>

export const make = <Name extends string, M extends Messages>(
  protocol: ActorProtocol<Name, M>, handlers: Handlers<M>, options: Pick<Actor<Name, M>, "minLanes" | "serial"> = {}
): Actor<Name, M> => ({ protocol, handlers, ...options })
