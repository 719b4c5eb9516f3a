import type { ConsumerMessages, JsMsg } from "@nats-io/jetstream"
import { Context, Effect, Exit, Layer, Redacted } from "effect"
import { Database } from "../../core/db/Database.ts"
import { MessagingConfig } from "../../core/message/MessagingConfig.ts"
import { errorText, log } from "../../core/observability/log.ts"
import { PrivacyKey } from "../../core/privacy/PrivacyKey.ts"
import { WebhookConfig } from "../../core/webhook/WebhookConfig.ts"
import { DeliverCommands } from "../../streams/topics.ts"
import { decodeBatch } from "../../streams/consumers.ts"
import { deliveryConsumer, DeliveryChannels } from "../../streams/messageTopology.ts"
import { Nats } from "../../streams/Nats.ts"
import { natsFailure } from "../../streams/natsErrors.ts"
import { outboxStream } from "../../streams/subjects.ts"
import { AppConfig } from "../../core/config/AppConfig.ts"
import { messagePublisher } from "../runtime/OutboxRelay.ts"
import { periodic } from "../runtime/periodic.ts"
import { attemptBatch, type Verdict } from "./attempt.ts"
import { makeSendBudget } from "./sendBudget.ts"
import { closeIdleConversations } from "./conversationSweep.ts"
import { EmailTransport } from "./EmailTransport.ts"
import { releaseHeldMessages } from "./heldRelease.ts"
import { WhatsAppTransport } from "./WhatsAppTransport.ts"

/**
 * Commands taken together per channel and worker: a batch is claimed in one transaction, sent concurrently, and
 * recorded in one more, so a broadcast's thousands of sends cost two transactions per batch, not per send (the
 * statements and socket writes per send were what capped dispatch). At most BATCHES are under way per channel; while
 * they are, commands wait and the next batch takes up to BATCH of them, so a quiet channel sends each at once.
 */
const BATCH = 32
const BATCHES = 4

export interface MessageDelivererShape {
  /** Closes conversations idle at `now` past the configured time (the sweep's schedule calls it with the clock). */
  readonly sweep: (now: Date) => Promise<number>
  /** Releases messages held by quiet hours whose hold ends by `now` plus a sweep's interval; answers how many. */
  readonly release: (now: Date) => Promise<number>
}

/**
 * The worker side of messaging: one consumer per channel reading the outbox's deliver commands, each command one
 * attempt at a time (claim, provider call, outcome), acked when the message is settled and naked with a delay
 * otherwise; the sweep that closes idle conversations (a fiber of this layer, every GEP_CONVERSATION_SWEEP_MS on
 * the Clock); and the one that releases messages held by quiet hours (every GEP_HOLD_SWEEP_MS).
 */
export class MessageDeliverer extends Context.Service<MessageDeliverer, MessageDelivererShape>()("app/message/MessageDeliverer") {
  static readonly layer = Layer.effect(MessageDeliverer, Effect.gen(function*() {
    const app = yield* AppConfig
    const config = yield* MessagingConfig
    const webhook = yield* WebhookConfig
    const { sql } = yield* Database
    const { js } = yield* Nats
    const context = yield* Effect.context<EmailTransport | WhatsAppTransport>()
    const publish = yield* messagePublisher
    const deps = {
      sql, namespace: app.namespace, key: Redacted.value(webhook.encryptionKey), config,
      publish, budget: makeSendBudget(), privacy: yield* PrivacyKey
    }
    const inFlight = new Set<Promise<void>>()
    const streams: Array<ConsumerMessages> = []
    const loops: Array<Promise<void>> = []

    const handle = async (batch: ReadonlyArray<JsMsg>): Promise<void> => {
      const cmds = decodeBatch(batch, DeliverCommands, "message deliver command undecodable, dropped")
      if (cmds.length === 0) return
      const exit = await Effect.runPromiseExit(Effect.provideContext(attemptBatch(deps, cmds.map((c) => c.value)), context))
      if (Exit.isFailure(exit)) log("warn", "message delivery deferred", { seqs: cmds.map((c) => c.m.seq).join(","), error: errorText(exit.cause) })
      cmds.forEach(({ m }, i) => {
        const verdict: Verdict = Exit.isSuccess(exit) ? exit.value[i]! : { ack: false, delayMs: 5_000 }
        if (verdict.ack) m.ack()
        else m.nak(Math.max(100, verdict.delayMs))
      })
    }

    /** Reads the channel's commands into batches: at most BATCHES under way, each taking what waited, up to BATCH. */
    const run = async (messages: ConsumerMessages) => {
      const running = new Set<Promise<void>>()
      let waiting: Array<JsMsg> = []
      const start = () => {
        const batch = waiting.slice(0, BATCH)
        waiting = waiting.slice(BATCH)
        const p: Promise<void> = handle(batch).finally(() => {
          running.delete(p)
          inFlight.delete(p)
          if (waiting.length > 0 && running.size < BATCHES) start()
        })
        running.add(p)
        inFlight.add(p)
      }
      for await (const m of messages) {
        waiting.push(m)
        if (running.size < BATCHES) start()
        // Read no further than the batches under way can take next: the rest stays with the server for other workers.
        while (waiting.length >= BATCH * BATCHES) await Promise.race(running)
      }
      while (waiting.length > 0 || running.size > 0) {
        if (waiting.length > 0 && running.size < BATCHES) start()
        else await Promise.race(running)
      }
    }

    const sweep = (now: Date) => closeIdleConversations(sql, config.conversationIdleMs, app.namespace, now).then(async (events) => {
      await publish(events)
      return events.length
    })

    const release = (now: Date) => releaseHeldMessages(sql, app.namespace, now, config.holdSweepMs).then(async (commands) => {
      await publish(commands)
      return commands.length
    })

    yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          for (const channel of DeliveryChannels) {
            const consumer = await js.consumers.get(outboxStream(app.namespace), deliveryConsumer(app.namespace, channel))
            const messages = await consumer.consume({ max_messages: BATCH * BATCHES })
            streams.push(messages)
            loops.push(run(messages))
          }
        },
        catch: natsFailure
      }).pipe(Effect.andThen(Effect.logInfo("message deliverer started"))),
      () => Effect.promise(async () => {
        await Promise.all(streams.map((s) => s.close().catch(() => undefined)))
        await Promise.allSettled([...inFlight])
        await Promise.allSettled(loops)
      }).pipe(Effect.andThen(Effect.logInfo("message deliverer stopped")))
    )
    yield* Effect.forkScoped(periodic({ name: "conversation sweep", span: "MessageDeliverer.sweep", every: config.conversationSweepMs, run: sweep }))
    yield* Effect.forkScoped(periodic({ name: "held message release", span: "MessageDeliverer.release", every: config.holdSweepMs, run: release }))
    return MessageDeliverer.of({ sweep, release })
  }))
}
