import { Clock, Context, Data, Effect, Layer } from "effect"
import { randomUUID } from "node:crypto"
import type { RedeliverCommand, WebhookCommand } from "../../actors/webhook/protocol.ts"
import { AppConfig } from "../../core/config/AppConfig.ts"
import { Database, withTenant, type Tx } from "../../core/db/Database.ts"
import { databaseFailure, type DatabaseFailure } from "../../core/db/DatabaseFailure.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import { errorText, log } from "../../core/observability/log.ts"
import { WebhookTestEvent } from "../../core/webhook/objectKey.ts"
import { assignSequences } from "../../core/webhook/sequence.ts"
import { encode } from "../../streams/envelope.ts"
import { Nats } from "../../streams/Nats.ts"
import { outboxSubject } from "../../streams/subjects.ts"
import { REPLAY_RUNNING_MS, REPLAYS_PER_HOUR, type ReplayWindow } from "./replayRules.ts"

export interface TestSent {
  readonly event_id: string
  readonly sequence: number
}

/** Thrown inside the replay's transaction to roll it back: the rate limit says no (retry after `seconds`). */
class ReplayLimited extends Data.TaggedError("ReplayLimited")<{ readonly seconds: number }> {}

export type ReplayOutcome =
  | { readonly kind: "accepted"; readonly replay_id: string; readonly events: number }
  | { readonly kind: "limited"; readonly retry_after_seconds: number }

/**
 * Test events, resends and replays for one subscription (the caller has checked it is the caller's): each is an
 * outbox command written in a transaction of the tenant and published after commit (the worker relay's sweep
 * publishes it if this process could not), which the webhook fan-out turns into jobs on the subscription's own
 * subject: the normal deliverer signs, sends, retries and logs them.
 */
export class WebhookSends extends Context.Service<WebhookSends, {
  readonly test: (scope: TenantScope, subscriptionId: string) => Effect.Effect<TestSent, DatabaseFailure>
  /** The resend's id, or undefined when the delivery is not this subscription's or its event is no longer kept. */
  readonly resend: (scope: TenantScope, subscriptionId: string, deliveryId: string) => Effect.Effect<{ resend_id: string; event_id: string } | undefined, DatabaseFailure>
  readonly replay: (scope: TenantScope, subscriptionId: string, window: ReplayWindow) => Effect.Effect<ReplayOutcome, DatabaseFailure>
}>()("app/webhooks/WebhookSends") {
  static readonly layer = Layer.effect(WebhookSends, Effect.gen(function*() {
    const { sql } = yield* Database
    const { namespace } = yield* AppConfig
    const { js } = yield* Nats
    const subject = (name: string) => outboxSubject(namespace, "cmd", name)

    /** The command's outbox row (a webhook event gets its sequence here, like every other event's). */
    const writeCommand = async (tx: Tx, scope: TenantScope, id: string, name: string, command: WebhookCommand | RedeliverCommand) => {
      const sequence = "event_type" in command ? (await assignSequences(tx, [command]))[0] : undefined
      const data = encode(sequence === undefined ? command : { ...command, sequence })
      await tx`INSERT INTO outbox (id, tenant_id, subject, payload) VALUES (${id}, ${scope.tenant_id}, ${subject(name)}, ${Buffer.from(data)})`
      return { data, sequence: sequence ?? 0 }
    }

    /**
     * Writes the command in the tenant's transaction (after `more`), then publishes it at once; what this process
     * cannot publish, the worker relay's sweep does (the stream deduplicates on the row id either way).
     */
    const send = <A>(scope: TenantScope, command: WebhookCommand | RedeliverCommand, name: string, id: string, more?: (tx: Tx) => Promise<A>) =>
      Effect.tryPromise({
        try: async () => {
          const written = await withTenant(sql, scope.tenant_id, async (tx) => {
            const extra = more ? await more(tx) : undefined
            return { ...(await writeCommand(tx, scope, id, name, command)), extra }
          })
          await js.publish(subject(name), written.data, { msgID: id })
            .then(() => sql`DELETE FROM outbox WHERE id = ${id}`)
            .catch((e) => log("warn", "webhook command publish deferred to the relay sweep", { error: errorText(e) }))
          return written
        },
        catch: (e) => (e instanceof ReplayLimited ? e : databaseFailure(e))
      })

    /** A command no rate limit applies to. */
    const sendOnly = (scope: TenantScope, command: WebhookCommand | RedeliverCommand, name: string, id: string) =>
      send(scope, command, name, id).pipe(Effect.catchTag("ReplayLimited", Effect.die))

    const test = Effect.fn("WebhookSends.test")(function*(scope: TenantScope, subscriptionId: string) {
      const now = new Date(yield* Clock.currentTimeMillis)
      const id = randomUUID()
      const command: WebhookCommand = {
        ...scope, occurred_at: now.toISOString(), event_type: WebhookTestEvent, subscription_id: subscriptionId,
        data: { subscription_id: subscriptionId, message: "A test event sent from POST /api/v1/webhooks/{id}/test" }
      }
      const { sequence } = yield* sendOnly(scope, command, `webhook.${WebhookTestEvent}`, id)
      return { event_id: id, sequence }
    })

    const resend = Effect.fn("WebhookSends.resend")(function*(scope: TenantScope, subscriptionId: string, deliveryId: string) {
      const [kept] = yield* Effect.tryPromise({
        try: () => withTenant(sql, scope.tenant_id, (tx) => tx<Array<{ event_id: string }>>`
          SELECT e.event_id FROM webhook_deliveries d
          JOIN webhook_events e ON e.subscription_id = d.subscription_id AND e.event_id = d.event_id
          WHERE d.id = ${deliveryId} AND d.subscription_id = ${subscriptionId} AND d.sandbox = ${scope.sandbox}`),
        catch: databaseFailure
      })
      if (!kept) return undefined
      const resendId = randomUUID()
      const command: RedeliverCommand = {
        kind: "redeliver", ...scope, subscription_id: subscriptionId, trigger: "resend", run_id: resendId, event_id: kept.event_id
      }
      yield* sendOnly(scope, command, "webhook.redeliver", resendId)
      return { resend_id: resendId, event_id: kept.event_id }
    })

    const replay = Effect.fn("WebhookSends.replay")(function*(scope: TenantScope, subscriptionId: string, window: ReplayWindow) {
      const now = yield* Clock.currentTimeMillis
      const replayId = randomUUID()
      const command: RedeliverCommand = {
        kind: "redeliver", ...scope, subscription_id: subscriptionId, trigger: "replay", run_id: replayId,
        window: { since: window.since.toISOString(), until: window.until.toISOString(), event_types: window.event_types }
      }
      // The subscription row locked: two replays asked for at once are counted one after the other.
      const outcome = yield* send(scope, command, "webhook.redeliver", replayId, async (tx) => {
        await tx`SELECT 1 FROM webhook_subscriptions WHERE id = ${subscriptionId} FOR UPDATE`
        const recent = await tx<Array<{ created_at: Date; published_at: Date | null }>>`
          SELECT created_at, published_at FROM webhook_replays
          WHERE subscription_id = ${subscriptionId} AND created_at > ${new Date(now - 3_600_000)} ORDER BY created_at`
        const running = recent.find((r) => r.published_at === null && r.created_at.getTime() > now - REPLAY_RUNNING_MS)
        if (running) throw new ReplayLimited({ seconds: Math.max(1, Math.ceil((running.created_at.getTime() + REPLAY_RUNNING_MS - now) / 1000)) })
        if (recent.length >= REPLAYS_PER_HOUR) {
          throw new ReplayLimited({ seconds: Math.max(1, Math.ceil((recent[0]!.created_at.getTime() + 3_600_000 - now) / 1000)) })
        }
        const [counted] = await tx<Array<{ n: number }>>`
          SELECT count(*)::int AS n FROM webhook_events
          WHERE subscription_id = ${subscriptionId} AND emitted_at >= ${window.since} AND emitted_at < ${window.until}
            ${window.event_types === null ? tx`` : tx`AND event_type = ANY(${window.event_types as Array<string>})`}`
        await tx`
          INSERT INTO webhook_replays (id, subscription_id, tenant_id, sandbox, since, until, event_types, events, created_at)
          VALUES (${replayId}, ${subscriptionId}, ${scope.tenant_id}, ${scope.sandbox}, ${window.since}, ${window.until},
            ${window.event_types as Array<string> | null}, ${counted!.n}, ${new Date(now)})`
        return counted!.n
      }).pipe(
        Effect.map((w): ReplayOutcome => ({ kind: "accepted", replay_id: replayId, events: w.extra! })),
        Effect.catchTag("ReplayLimited", (e) => Effect.succeed<ReplayOutcome>({ kind: "limited", retry_after_seconds: e.seconds }))
      )
      return outcome
    })

    return WebhookSends.of({ test, resend, replay })
  }))
}
