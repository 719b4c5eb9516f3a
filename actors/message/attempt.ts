import { Clock, DateTime, Effect, Exit, Queue } from "effect"
import type { Sql } from "../../core/db/Database.ts"
import { withTenant } from "../../core/db/Database.ts"
import { listUnsubscribeHeaders } from "../../core/message/unsubscribe.ts"
import type { MessagingConfigShape } from "../../core/message/MessagingConfig.ts"
import type { PrivacyKeyShape } from "../../core/privacy/PrivacyKey.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import { outboxSubject } from "../../streams/subjects.ts"
import type { OutboxMessage } from "../runtime/Actor.ts"
import { afterSend, beforeSends, sendsRecorded } from "../runtime/faults.ts"
import { type Claim, claimBatch } from "./delivery.ts"
import { recordFailed, recordRetry, recordSent } from "./outcomes.ts"
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

type Claimed = Extract<Claim, { kind: "send" }>

const sendOne = (deps: AttemptDeps, c: Claimed) =>
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

/** An attempt's outcome to record: the provider's answer, or a permanent failure found at the claim. */
type Outcome = { readonly message: Claimed["message"] | { readonly id: string }; readonly exit: Exit.Exit<string, SendFailure> }

/**
 * One delivery attempt of each message of a batch of one tenant's commands: claimed in one transaction (each attempt
 * recorded before its call), sent concurrently, and the outcomes recorded in one more transaction with the webhooks
 * they announce. A message held by quiet hours is not claimed before its `not_before` on the Clock: the command comes
 * back when the hold ends (or at most MAX_HOLD_MS later, to look again). Temporary failures come back after a backoff
 * until the attempts run out; an outcome that is unknown for WhatsApp waits for reconciliation by status webhook
 * before any resend. Answers a verdict per message id (two commands of one message share it).
 */
const attemptScope = Effect.fn("MessageDeliverer.attemptScope")(function*(deps: AttemptDeps, scope: TenantScope, ids: ReadonlyArray<string>) {
  const now = yield* Clock.currentTimeMillis
  const claims = yield* inTenant(deps, scope, (tx) => claimBatch(tx, scope, ids, {
    now,
    reconcileMs: deps.config.reconcileMs,
    attemptDeadlineMs: deps.config.sendTimeoutMs + 5_000,
    defaultRatePerMinute: deps.config.defaultRatePerMinute,
    key: deps.key,
    budget: deps.budget,
    hash: (identifier) => deps.privacy.hash(scope.tenant_id, identifier)
  }))
  const verdicts = new Map<string, Verdict>()
  const outcomes: Array<Outcome> = []
  const claimed: Array<Claimed> = []
  for (const [id, c] of claims) {
    if (c.kind === "done") verdicts.set(id, { ack: true })
    else if (c.kind === "later") verdicts.set(id, { ack: false, delayMs: c.delayMs })
    else if (c.kind === "missing_channel") {
      const failure = new SendFailure({ kind: "permanent", code: "CHANNEL_NOT_CONFIGURED", message: `the ${c.channel} channel was removed` })
      outcomes.push({ message: { id }, exit: Exit.fail(failure) })
    } else claimed.push(c)
  }
  for (const c of claimed) {
    if (c.repeat) yield* Effect.logWarning("repeating a send attempt whose outcome was never recorded").pipe(Effect.annotateLogs({ message_id: c.message.id, channel: c.message.channel }))
  }
  const faults = yield* Effect.promise(() => beforeSends(claimed.length))
  // A withheld attempt (the fault injection's) is never acked: its worker dies before answering any of the batch.
  for (const [i, c] of claimed.entries()) if (faults.withheld[i]) verdicts.set(c.message.id, { ack: false, delayMs: deps.config.sendTimeoutMs })
  const sending = claimed.filter((_, i) => !faults.withheld[i])
  const answered = yield* Queue.unbounded<Outcome>()
  yield* Effect.forkChild(Effect.forEach(sending, (c) =>
    Effect.exit(sendOne(deps, c)).pipe(Effect.flatMap((exit) => {
      afterSend()
      return Queue.offer(answered, { message: c.message, exit })
    })), { concurrency: "unbounded", discard: true }))
  // Outcomes are recorded as they come, each transaction taking every answer that came while the one before ran: a
  // slow call never holds back the record of the fast ones (a send answered and not yet recorded when its worker dies
  // is repeated with its Message-ID, so that window stays one transaction long).
  const record = Effect.fnUntraced(function*() {
    let waiting = sending.length
    do {
      const arrived = waiting === 0 ? [] : yield* Queue.takeBetween(answered, 1, waiting)
      waiting -= arrived.length
      for (const [id, v] of yield* recordOutcomes(deps, scope, [...outcomes.splice(0), ...arrived])) verdicts.set(id, v)
    } while (waiting > 0)
  })
  yield* record().pipe(Effect.ensuring(Effect.promise(() => sendsRecorded(faults.dies))))
  return verdicts
})

/**
 * Delivery attempts for a batch of deliver commands (the deliverer's, of one channel): one attemptScope per tenant,
 * concurrently. Answers a verdict per command, in order.
 */
export const attemptBatch = Effect.fn("MessageDeliverer.attemptBatch")(function*(deps: AttemptDeps, cmds: ReadonlyArray<DeliverCommand>) {
  const scopes = Map.groupBy(cmds, (cmd) => `${cmd.tenant_id}:${cmd.sandbox}`)
  const answered = yield* Effect.forEach(scopes.values(), (group) =>
    attemptScope(deps, { tenant_id: group[0]!.tenant_id, sandbox: group[0]!.sandbox }, group.map((c) => c.message_id)), { concurrency: "unbounded" })
  const verdicts = new Map(answered.flatMap((m) => [...m]))
  // Every id has its verdict (the claim answers each); a missing one would be looked at again, never dropped.
  return cmds.map((cmd) => verdicts.get(cmd.message_id) ?? ({ ack: false, delayMs: 5_000 } satisfies Verdict))
})

/** One delivery attempt of one message (attemptBatch of one). */
export const attempt = (deps: AttemptDeps, cmd: DeliverCommand) => attemptBatch(deps, [cmd]).pipe(Effect.map((v) => v[0]!))

/** The attempts' outcomes, recorded in one transaction, the webhooks they announce published; what to do with each command. */
const recordOutcomes = Effect.fn("MessageDeliverer.recordOutcomes")(function*(deps: AttemptDeps, scope: TenantScope, outcomes: ReadonlyArray<Outcome>) {
  const verdicts = new Map<string, Verdict>()
  if (outcomes.length === 0) return verdicts
  const subject = subjectIn(deps)
  const now = (yield* DateTime.nowAsDate).toISOString()
  const sent: Array<{ id: string; providerId: string }> = []
  const failed: Array<{ id: string; failure: SendFailure }> = []
  const retried: Array<{ id: string; failure: SendFailure; keepOpen: boolean }> = []
  for (const { message: m, exit } of outcomes) {
    if (Exit.isSuccess(exit)) {
      sent.push({ id: m.id, providerId: exit.value })
      verdicts.set(m.id, { ack: true })
      continue
    }
    const failure = Exit.findErrorOption(exit)
    const f = failure._tag === "Some" ? failure.value : new SendFailure({ kind: "unknown", code: "DEFECT", message: String(exit.cause) })
    const attempts = "attempts" in m ? m.attempts : 0
    if ("channel" in m) yield* Effect.logWarning("send attempt failed").pipe(Effect.annotateLogs({ message_id: m.id, channel: m.channel, kind: f.kind, code: f.code, attempt: attempts }))
    if (f.kind === "permanent" || (f.kind === "temporary" && attempts >= deps.config.maxAttempts)) {
      failed.push({ id: m.id, failure: f })
      verdicts.set(m.id, { ack: true })
      continue
    }
    // Unknown for WhatsApp: the attempt stays open, so the next claim waits for a status before repeating it. Unknown
    // for email is a temporary failure: a repeat carries the same Message-ID.
    const keepOpen = f.kind === "unknown" && "channel" in m && m.channel === "whatsapp"
    retried.push({ id: m.id, failure: f, keepOpen })
    verdicts.set(m.id, { ack: false, delayMs: keepOpen ? deps.config.reconcileMs : f.retryAfterMs ?? backoffMs(deps.config.initialBackoffMs, attempts) })
  }
  const events = yield* inTenant(deps, scope, async (tx) => {
    const written = [...await recordSent(tx, scope, subject, sent, now)]
    for (const f of failed) written.push(...await recordFailed(tx, scope, subject, f.id, f.failure, now))
    for (const r of retried) await recordRetry(tx, r.id, r.failure, r.keepOpen)
    return written
  })
  yield* Effect.promise(() => deps.publish(events))
  return verdicts
})
