import { Clock, Context, Data, Effect, Layer } from "effect"
import { randomUUID } from "node:crypto"
import { AppConfig } from "../core/config/AppConfig.ts"
import { Admission } from "./Admission.ts"
import { Metrics } from "../core/observability/metrics.ts"
import type { TenantScope } from "../core/TenantScope.ts"
import type { ActorMessage, ActorProtocol, ErrorOf, Messages, PayloadOf, SuccessOf } from "./ActorProtocol.ts"
import { encode, ENVELOPE_VERSION, type Envelope, type Reply } from "./envelope.ts"
import { Replies } from "./topics.ts"
import { Nats } from "./Nats.ts"
import { partitionOf } from "./partition.ts"
import { ingressSubject, replyPrefix } from "./subjects.ts"

/** nats-server's default max_payload, for the moment before the server's INFO is known. */
const DEFAULT_MAX_PAYLOAD = 1024 * 1024

/** The envelope was not confirmed in time (JetStream did not ack, or the actor did not answer). Safe to retry. */
export class NotConfirmed extends Data.TaggedError("NotConfirmed")<{ readonly stage: "publish" | "reply" }> {}

/** The actor could not apply the message after repeated attempts; it was dead-lettered for an operator. */
export class ActorDefect extends Data.TaggedError("ActorDefect")<{ readonly message: string }> {}

/**
 * The actor could not apply the message because of its data (a value the database refuses, a payload too deep to
 * decode): dead-lettered at once, not retried. The request's fault, so never answered as retryable.
 */
export class ActorRejected extends Data.TaggedError("ActorRejected")<{ readonly message: string }> {}

/** The envelope is larger than one NATS message may be: nothing was published. */
export class EnvelopeTooLarge extends Data.TaggedError("EnvelopeTooLarge")<{ readonly bytes: number; readonly maxBytes: number }> {}

/**
 * Refused before anything was published: this ingress already holds as many calls as its workers answer in time, or
 * the tenant its share of them (streams/Admission.ts). Nothing was queued or stored; safe to retry later.
 */
export class Overloaded extends Data.TaggedError("Overloaded")<{ readonly reason: "process" | "tenant" }> {}

/** Why an actor call has no domain answer. */
export type ActorCallFailure = NotConfirmed | ActorDefect | ActorRejected | EnvelopeTooLarge | Overloaded

/** A failure that says nothing of the request: shed or not confirmed in time, so the same request may be sent again. */
export const isRetryableCallFailure = (e: unknown): e is NotConfirmed | Overloaded =>
  e instanceof NotConfirmed || e instanceof Overloaded

/** One method per message: the committed domain answer, a domain error, or why it could not be confirmed. */
export type Client<M extends Messages> = {
  readonly [K in keyof M]: (payload: PayloadOf<M[K]>) => Effect.Effect<SuccessOf<M[K]>, ErrorOf<M[K]> | ActorCallFailure>
}

export interface ActorClientShape {
  readonly for: <Name extends string, M extends Messages>(protocol: ActorProtocol<Name, M>, scope: TenantScope) => Client<M>
}

/**
 * Asks actors: publishes the envelope on its key's partition (acked by JetStream, `Nats-Msg-Id` = envelope id) and
 * waits on this process's one reply subscription for the answer the actor sends after its transaction committed.
 */
export class ActorClient extends Context.Service<ActorClient, ActorClientShape>()("app/streams/ActorClient") {
  static readonly layer = Layer.effect(ActorClient, Effect.gen(function*() {
    const config = yield* AppConfig
    const { nc, js } = yield* Nats
    const admission = yield* Admission
    const prefix = replyPrefix(config.namespace, randomUUID())
    const waiting = new Map<string, (reply: Reply) => void>()
    const sub = nc.subscribe(`${prefix}.*`, {
      callback: (err, msg) => {
        if (err) return
        const reply = Replies.decode(msg.data)
        waiting.get(reply.envelope_id)?.(reply)
      }
    })
    yield* Effect.addFinalizer(() => Effect.sync(() => sub.unsubscribe()))

    const ask = <M extends ActorMessage>(protocol: ActorProtocol, tag: string, scope: TenantScope, payload: PayloadOf<M>) =>
      Effect.flatMap(Clock.currentTimeMillis, (sentAt) => Effect.callback<SuccessOf<M>, ErrorOf<M> | ActorCallFailure>((resume) => {
        const codec = protocol.codecs[tag]!
        const id = randomUUID()
        const key = protocol.key(payload)
        const envelope: Envelope = {
          v: ENVELOPE_VERSION, id, actor: protocol.name, type: tag, tenant_id: scope.tenant_id, sandbox: scope.sandbox, key,
          payload: codec.encodePayload(payload), reply_to: `${prefix}.${id}`, sent_at: sentAt
        }
        const subject = ingressSubject(config.namespace, protocol.name, partitionOf(scope.tenant_id, key, config.partitions))
        let done = false
        const finish = (effect: Effect.Effect<SuccessOf<M>, ErrorOf<M> | ActorCallFailure>) => {
          if (done) return
          done = true
          clearTimeout(timer)
          waiting.delete(id)
          resume(effect)
        }
        // One timer and one map entry per request; no promise chain, no Error objects on the way.
        const timer = setTimeout(() => finish(Effect.fail(new NotConfirmed({ stage: "reply" }))), config.replyTimeoutMs)
        // Decoded in the caller's fiber, not in the subscription's callback: an answer that does not match the
        // protocol becomes a defect of that request (500) instead of an exception thrown into the NATS client.
        waiting.set(id, (reply) =>
          finish(Effect.suspend((): Effect.Effect<SuccessOf<M>, ErrorOf<M> | ActorDefect | ActorRejected> => {
            const exit = reply.exit
            return exit._tag === "Success"
              ? Effect.succeed(codec.decodeSuccess(exit.value) as SuccessOf<M>)
              : exit._tag === "Failure"
              ? Effect.fail(codec.decodeError(exit.error) as ErrorOf<M>)
              : exit._tag === "Rejected"
              ? Effect.fail(new ActorRejected({ message: exit.message }))
              : Effect.fail(new ActorDefect({ message: exit.message }))
          })))
        const bytes = encode(envelope)
        // Refused here rather than by the server (which would read as "not confirmed", a 503 inviting a retry).
        const maxBytes = nc.info?.max_payload ?? DEFAULT_MAX_PAYLOAD
        if (bytes.length > maxBytes) {
          finish(Effect.fail(new EnvelopeTooLarge({ bytes: bytes.length, maxBytes })))
          return
        }
        js.publish(subject, bytes, { msgID: id, timeout: config.replyTimeoutMs }).then(
          () => Metrics.published.inc({ actor: protocol.name, result: "acked" }),
          () => {
            Metrics.published.inc({ actor: protocol.name, result: "failed" })
            finish(Effect.fail(new NotConfirmed({ stage: "publish" })))
          }
        )
        return Effect.sync(() => {
          done = true
          clearTimeout(timer)
          waiting.delete(id)
        })
      }))

    const clients = new WeakMap<ActorProtocol, (scope: TenantScope) => Client<Messages>>()
    const forProtocol = <Name extends string, M extends Messages>(protocol: ActorProtocol<Name, M>, scope: TenantScope): Client<M> => {
      let make = clients.get(protocol as never)
      if (make === undefined) {
        const tags = Object.keys(protocol.messages)
        make = (s) => Object.fromEntries(tags.map((tag) => [
          tag,
          Effect.fn(`ActorClient.${protocol.name}.${tag}`)(function*(payload: unknown) {
            yield* Effect.annotateCurrentSpan({ tenant_id: s.tenant_id, actor: protocol.name })
            // The place is taken uninterruptibly and freed however the call ends (answered, timed out, interrupted).
            return yield* Effect.acquireUseRelease(
              admission.enter(s.tenant_id),
              (place) => "refused" in place ? Effect.fail(new Overloaded({ reason: place.refused })) : ask(protocol as never, tag, s, payload as never),
              (place) => Effect.sync(() => "leave" in place && place.leave())
            )
          })
        ])) as Client<Messages>
        clients.set(protocol as never, make)
      }
      return make(scope) as unknown as Client<M>
    }
    return ActorClient.of({ for: forProtocol })
  }))
}
