import { Clock, DateTime, Effect, Exit } from "effect"
import type { Sql } from "../../core/db/Database.ts"
import { withTenant } from "../../core/db/Database.ts"
import { listUnsubscribeHeaders } from "../../core/message/unsubscribe.ts"
import type { MessagingConfigShape } from "../../core/message/MessagingConfig.ts"
import type { PrivacyKeyShape } from "../../core/privacy/PrivacyKey.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import { outboxSubject } from "../../streams/subjects.ts"
import type { OutboxMessage } from "../runtime/Actor.ts"
import { afterSend, beforeSend, sendRecorded } from "../runtime/faults.ts"
import { claim, type QueuedMessage, recordFailed, recordRetry, recordSent } from "./delivery.ts"
import type { SendBudget } from "./sendBudget.ts"
import { EmailTransport } from "./EmailTransport.ts"
import { SendFailure } from "./SendFailure.ts"
import { WhatsAppTransport } from "./WhatsAppTransport.ts"
import type { DeliverCommandSchema } from "../../streams/topics.ts"

/** The deliverer's command (actors/message/events.ts `deliverCommand`). */
export type DeliverCommand = typeof DeliverCommandSchema.Type

/** What to do with the command: acknowledge it (done for good), or see it again after a delay. */
export type Verdict = { readonly ack: true } | { readonly ack: false; readonly delayMs: number }

export interface AttemptDeps {
  readonly sql: Sql
  readonly namespace: string
  readonly key: Buffer
  readonly config: MessagingConfigShape
  /** Publishes committed outbox rows at once (the relay's sweep covers a crash before it). */
  readonly publish: (messages: ReadonlyArray<OutboxMessage>) => Promise<void>
  /** This process's share of the tenants' send budgets (one per deliverer: sendBudget.ts). */
  readonly budget: SendBudget
  /** Hashes a recipient's identifiers to look them up among the privacy suppressions. */
  readonly privacy: PrivacyKeyShape
}

const MAX_BACKOFF_MS = 3_600_000

/** Exponential backoff from the configured first delay, with ±50 % jitter so retries of a burst spread out. */
export const backoffMs = (initialMs: number, attempt: number): number =>
  Math.round(Math.min(MAX_BACKOFF_MS, initialMs * 2 ** Math.max(0, attempt - 1)) * (0.5 + Math.random()))

const sendOne = (deps: AttemptDeps, c: Extract<Awaited<ReturnType<typeof claim>>, { kind: "send" }>) =>
  Effect.gen(function*() {
    const m = c.message
    if (m.channel === "email") {
      const email = yield* EmailTransport
      yield* email.send({
        messageId: m.id,
        from: { address: c.email!.from_address, name: c.email!.from_name },
        replyTo: c.email!.reply_to,
        to: m.to_address,
        subject: m.subject ?? "",
        text: m.body_text,
        html: m.body_html,
        headers: m.category === "marketing" ? listUnsubscribeHeaders(deps.config.publicBaseUrl, deps.key, m.id) : {}
      })
      return ""
    }
    const whatsapp = yield* WhatsAppTransport
    const sent = yield* whatsapp.send({
      phoneNumberId: c.whatsapp!.phone_number_id,
      accessToken: c.whatsapp!.access_token,
      to: m.to_address,
      callbackData: m.id,
      body: m.template_name === null
        ? { type: "text", text: m.body_text ?? "" }
        : { type: "template", name: m.template_name, language: m.template_language ?? "", parameters: m.template_parameters ?? [] }
    })
    return sent.wamid
  })

const subjectIn = (deps: AttemptDeps) => (kind: "cmd", name: string) => outboxSubject(deps.namespace, kind, name)
/** A transaction under the tenant's row-level security (a database failure fails the attempt: the command is naked). */
const inTenant = <A>(deps: AttemptDeps, scope: TenantScope, f: Parameters<typeof withTenant<A>>[2]) =>
  Effect.promise(() => withTenant(deps.sql, scope.tenant_id, f))

/**
 * One delivery attempt of one message: claimed (the attempt recorded before the call), sent, and its outcome
 * recorded with the webhook it announces. A message held by quiet hours is not claimed before its `not_before` on the
 * Clock: the command comes back when the hold ends (or at most MAX_HOLD_MS later, to look again). Temporary failures come back after a backoff until the attempts run out;
 * an outcome that is unknown for WhatsApp waits for reconciliation by status webhook before any resend.
 */
export const attempt = Effect.fn("MessageDeliverer.attempt")(function*(deps: AttemptDeps, cmd: DeliverCommand) {
  const scope: TenantScope = { tenant_id: cmd.tenant_id, sandbox: cmd.sandbox }
  const now = yield* Clock.currentTimeMillis
  const c = yield* inTenant(deps, scope, (tx) => claim(tx, scope, cmd.message_id, {
    now,
    reconcileMs: deps.config.reconcileMs,
    attemptDeadlineMs: deps.config.sendTimeoutMs + 5_000,
    defaultRatePerMinute: deps.config.defaultRatePerMinute,
    key: deps.key,
    budget: deps.budget,
    hash: (identifier) => deps.privacy.hash(scope.tenant_id, identifier)
  }))
  if (c.kind === "done") return { ack: true } satisfies Verdict
  if (c.kind === "later") return { ack: false, delayMs: c.delayMs } satisfies Verdict
  if (c.kind === "missing_channel") {
    const failure = new SendFailure({ kind: "permanent", code: "CHANNEL_NOT_CONFIGURED", message: `the ${cmd.channel} channel was removed` })
    const now = (yield* DateTime.nowAsDate).toISOString()
    const events = yield* inTenant(deps, scope, (tx) => recordFailed(tx, scope, subjectIn(deps), cmd.message_id, failure, now))
    yield* Effect.promise(() => deps.publish(events))
    return { ack: true } satisfies Verdict
  }
  if (c.repeat) yield* Effect.logWarning("repeating a send attempt whose outcome was never recorded").pipe(Effect.annotateLogs({ message_id: c.message.id, channel: c.message.channel }))
  yield* Effect.promise(beforeSend)
  const exit = yield* Effect.exit(sendOne(deps, c))
  afterSend()
  return yield* recordOutcome(deps, scope, c.message, exit).pipe(Effect.ensuring(Effect.sync(sendRecorded)))
})

/** The attempt's outcome, recorded, and what to do with the command. */
const recordOutcome = Effect.fn("MessageDeliverer.recordOutcome")(function*(
  deps: AttemptDeps, scope: TenantScope, m: QueuedMessage, exit: Exit.Exit<string, SendFailure>
) {
  const subject = subjectIn(deps)
  const now = (yield* DateTime.nowAsDate).toISOString()
  if (Exit.isSuccess(exit)) {
    const events = yield* inTenant(deps, scope, (tx) => recordSent(tx, scope, subject, m.id, exit.value, now))
    yield* Effect.promise(() => deps.publish(events))
    return { ack: true } satisfies Verdict
  }
  const failure = Exit.findErrorOption(exit)
  const f = failure._tag === "Some" ? failure.value : new SendFailure({ kind: "unknown", code: "DEFECT", message: String(exit.cause) })
  yield* Effect.logWarning("send attempt failed").pipe(Effect.annotateLogs({ message_id: m.id, channel: m.channel, kind: f.kind, code: f.code, attempt: m.attempts }))
  if (f.kind === "permanent" || (f.kind === "temporary" && m.attempts >= deps.config.maxAttempts)) {
    const events = yield* inTenant(deps, scope, (tx) => recordFailed(tx, scope, subject, m.id, f, now))
    yield* Effect.promise(() => deps.publish(events))
    return { ack: true } satisfies Verdict
  }
  // Unknown for WhatsApp: the attempt stays open, so the next claim waits for a status before repeating it. Unknown
  // for email is a temporary failure: a repeat carries the same Message-ID.
  const keepOpen = f.kind === "unknown" && m.channel === "whatsapp"
  yield* inTenant(deps, scope, (tx) => recordRetry(tx, m.id, f, keepOpen))
  return {
    ack: false,
    delayMs: keepOpen ? deps.config.reconcileMs : f.retryAfterMs ?? backoffMs(deps.config.initialBackoffMs, m.attempts)
  } satisfies Verdict
})
