import { Context, Data, Effect, Layer } from "effect"
import { randomUUID } from "node:crypto"
import { AppConfig } from "../core/config/AppConfig.ts"
import { Metrics } from "../core/observability/metrics.ts"
import { decode, encode, type Envelope, type Reply } from "./envelope.ts"
import { Nats } from "./Nats.ts"
import { partitionOf } from "./partition.ts"
import { ingressSubject, replyPrefix } from "./subjects.ts"

/** The envelope was not confirmed in time (JetStream did not ack, or the actor did not answer). Safe to retry. */
export class NotConfirmed extends Data.TaggedError("NotConfirmed")<{ readonly stage: "publish" | "reply" }> {}

export type Outgoing<P> = Omit<Envelope<P>, "id" | "reply_to" | "sent_at"> & { readonly id?: string }

export interface IngressPublisherShape {
  /** Publishes the envelope (acked by JetStream) and waits for the actor's reply after it committed. */
  readonly request: <P>(envelope: Outgoing<P>) => Effect.Effect<Reply, NotConfirmed>
}

export class IngressPublisher extends Context.Service<IngressPublisher, IngressPublisherShape>()(
  "app/streams/IngressPublisher"
) {
  static readonly layer = Layer.effect(IngressPublisher, Effect.gen(function*() {
    const config = yield* AppConfig
    const { nc, js } = yield* Nats
    const prefix = replyPrefix(config.namespace, randomUUID())
    const waiting = new Map<string, (reply: Reply) => void>()
    const sub = nc.subscribe(`${prefix}.*`, {
      callback: (err, msg) => {
        if (err) return
        const reply = decode<Reply>(msg.data)
        waiting.get(reply.envelope_id)?.(reply)
      }
    })
    yield* Effect.addFinalizer(() => Effect.sync(() => sub.unsubscribe()))

    const request = Effect.fn("IngressPublisher.request")(function*<P>(outgoing: Outgoing<P>) {
      const id = outgoing.id ?? randomUUID()
      const envelope: Envelope<P> = { ...outgoing, id, reply_to: `${prefix}.${id}`, sent_at: Date.now() }
      const partition = partitionOf(envelope.tenant_id, envelope.key, config.partitions)
      const subject = ingressSubject(config.namespace, envelope.actor, partition)
      yield* Effect.annotateCurrentSpan({ envelope_id: id, tenant_id: envelope.tenant_id, subject })
      let resolve!: (r: Reply) => void
      const replied = new Promise<Reply>((r) => (resolve = r))
      waiting.set(id, resolve)
      return yield* Effect.gen(function*() {
        yield* Effect.tryPromise({
          try: () => js.publish(subject, encode(envelope), { msgID: id, timeout: config.replyTimeoutMs }),
          catch: () => new NotConfirmed({ stage: "publish" })
        }).pipe(Effect.tapError(() => Effect.sync(() => Metrics.published.inc({ actor: envelope.actor, result: "failed" }))))
        Metrics.published.inc({ actor: envelope.actor, result: "acked" })
        return yield* Effect.promise(() => replied).pipe(
          Effect.timeoutOrElse({
            duration: config.replyTimeoutMs,
            orElse: () => Effect.fail(new NotConfirmed({ stage: "reply" }))
          })
        )
      }).pipe(Effect.ensuring(Effect.sync(() => waiting.delete(id))))
    })
    return IngressPublisher.of({ request })
  }))
}
