import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { makeSendBudget } from "../../../actors/message/sendBudget.ts"
import { Clock, Effect, Layer } from "effect"
import { randomBytes } from "node:crypto"
import { TestClock } from "effect/testing"
import { attempt, type AttemptDeps } from "../../../actors/message/attempt.ts"
import { EmailTransport } from "../../../actors/message/EmailTransport.ts"
import { releaseHeldMessages } from "../../../actors/message/heldRelease.ts"
import { WhatsAppTransport } from "../../../actors/message/WhatsAppTransport.ts"
import { deterministicId } from "../../../core/deterministicId.ts"
import { makePrivacyKey } from "../../../core/privacy/PrivacyKey.ts"
import { MessagingConfig, type MessagingConfigShape } from "../../../core/message/MessagingConfig.ts"
import { quietHoursEnd } from "../../../core/message/quietHours.ts"
import type { SegmentDefinition } from "../../../schemas/segment.ts"
import { broadcastMessageId, broadcastSend, insertBroadcast, insertRecipient, messageActor } from "../../support/broadcasts.ts"
import { type MailingPlatform, newContact, startMailingPlatform, useEncryptionKey } from "../../support/messaging.ts"
import { testSql } from "../../support/platform.ts"

// Quiet hours hold a broadcast message until the recipient's window opens (issue 25, "quiet hours hold a message until
// the window opens (TestClock)"). The message actor of a real platform records it queued with `not_before` (its own,
// real clock) and writes no deliver command; the deliverer's release sweep and attempt are then run here on the test
// clock against the same database and SMTP sink: nothing released or sent before the window's end, sent after it. The
// platform's own deliverer, on the real clock, holds the command the release writes.

const key = useEncryptionKey()
const sql = testSql()
let m: MailingPlatform
let actor: ReturnType<typeof messageActor>

beforeAll(async () => {
  m = await startMailingPlatform(sql, key, "bquiet")
  actor = messageActor(m.platform.config)
})
afterAll(async () => {
  await actor?.close()
  await m?.stop()
  await sql.end()
})

const everyone: SegmentDefinition = { version: 1, match: { field: "contact.has_email", op: "eq", value: true } }
const pad = (h: number) => `${String(((h % 24) + 24) % 24).padStart(2, "0")}:00`

/** The deliverer's dependencies, as its layer builds them, on this test's connection and the platform's sink. */
const depsFor = (): AttemptDeps => {
  const config: MessagingConfigShape = {
    smtpUrl: m.sink.url, whatsAppApiUrl: "http://127.0.0.1:9", publicBaseUrl: m.platform.baseUrl, sendTimeoutMs: 10_000,
    maxAttempts: 3, initialBackoffMs: 100, reconcileMs: 120_000, defaultRatePerMinute: 600,
    conversationIdleMs: 86_400_000, conversationSweepMs: 60_000, holdSweepMs: LEAD_MS
  }
  // What the attempt announces is in the outbox; the platform's relay publishes it.
  return {
    sql, namespace: m.platform.config.namespace, key, config, publish: async () => {}, budget: makeSendBudget(),
    privacy: makePrivacyKey(randomBytes(32))
  }
}
/** One run of the deliverer's release sweep at the Clock's time: the held message ids it released. */
const release = Effect.gen(function*() {
  const now = yield* Clock.currentTimeMillis
  const commands = yield* Effect.promise(() => releaseHeldMessages(sql, m.platform.config.namespace, new Date(now), LEAD_MS))
  return commands.map((c) => c.id)
})
const LEAD_MS = 5_000

const transports = (config: MessagingConfigShape) =>
  Layer.mergeAll(EmailTransport.layer, WhatsAppTransport.layer).pipe(Layer.provide(Layer.succeed(MessagingConfig, MessagingConfig.of(config))))

/** A broadcast whose quiet window is around the current hour in UTC, a consenting guest in it, the message held. */
const heldMessage = async () => {
  const hour = new Date().getUTCHours()
  const window = { from: pad(hour - 1), to: pad(hour + 2) }
  // The recipient's zone is UTC; the broadcast's hotel is in Madrid (the fallback, not used here).
  const b = await insertBroadcast(sql, m.tenant, { definition: everyone, quiet_hours: window, hotel_id: m.tenant.hotel_id })
  const c = await newContact(m.platform.baseUrl, m.tenant, { email_consent: true })
  await insertRecipient(sql, m.tenant, b, c.id, "UTC")
  const expectedEnd = quietHoursEnd(Date.now(), window, "UTC")
  const outcome = await actor.send(m.tenant, broadcastSend(b, c.id))
  expect(outcome).toMatchObject({ message_id: broadcastMessageId(b, c.id), status: "queued", skip_reason: null })
  const messageId = outcome.message_id
  const [row] = await sql`SELECT status, not_before, hold_namespace FROM messages WHERE id = ${messageId}`
  expect(row).toMatchObject({ status: "queued", hold_namespace: m.platform.config.namespace })
  const notBefore = (row!.not_before as Date).getTime()
  expect(notBefore).toBe(expectedEnd)
  expect(notBefore - Date.now()).toBeGreaterThan(3_600_000 - 60_000)
  return {
    b, notBefore, messageId, header: `<${messageId}@hotelexample.com>`,
    cmd: { tenant_id: m.tenant.tenant_id, sandbox: false, message_id: messageId, channel: "email" as const }
  }
}

describe("quiet hours", () => {
  it.effect("hold a broadcast message until the window ends in the recipient's zone: not sent before, sent after", () =>
    Effect.gen(function*() {
      const { b, notBefore, messageId, header, cmd } = yield* Effect.promise(heldMessage)
      const deps = depsFor()
      yield* Effect.gen(function*() {
        // A minute before the window ends: not released, and an early command would not be claimed.
        yield* TestClock.setTime(notBefore - 60_000)
        expect(yield* release).toEqual([])
        expect(yield* attempt(deps, cmd)).toEqual({ ack: false, delayMs: 60_000 })
        // Hours before it: an early command comes back at most 15 minutes later, to look again.
        yield* TestClock.setTime(notBefore - 3 * 3_600_000)
        expect(yield* attempt(deps, cmd)).toEqual({ ack: false, delayMs: 15 * 60_000 })
        // A sweep's interval before the end: released (its command written), still not claimed before the end.
        yield* TestClock.setTime(notBefore - 3_000)
        expect(yield* release).toEqual([deterministicId(`deliver:${messageId}`)])
        expect(yield* release).toEqual([])
        expect(yield* attempt(deps, cmd)).toEqual({ ack: false, delayMs: 3_000 })
        const [held] = yield* Effect.promise(() => sql`SELECT status, attempts, hold_namespace FROM messages WHERE id = ${messageId}`)
        expect(held).toMatchObject({ status: "queued", attempts: 0, hold_namespace: null })
        expect(m.sink.mails.some((mail) => mail.messageId === header)).toBe(false)
        // The window has ended: sent.
        yield* TestClock.setTime(notBefore + 1_000)
        expect(yield* attempt(deps, cmd)).toEqual({ ack: true })
      }).pipe(Effect.provide(transports(deps.config)))
      const [sent] = yield* Effect.promise(() => sql`SELECT status, attempts, broadcast_id FROM messages WHERE id = ${messageId}`)
      expect(sent).toMatchObject({ status: "sent", attempts: 1, broadcast_id: b })
      expect(m.sink.countByMessageId().get(header)).toBe(1)
    }), 120_000)

  it.effect("a held message whose broadcast is cancelled before the window ends is skipped as cancelled, never sent", () =>
    Effect.gen(function*() {
      const { b, notBefore, messageId, header, cmd } = yield* Effect.promise(heldMessage)
      yield* Effect.promise(() => sql`UPDATE broadcasts SET status = 'cancelled', cancelled_at = now() WHERE id = ${b}`)
      const deps = depsFor()
      yield* TestClock.setTime(notBefore + 1_000)
      expect(yield* release).toEqual([deterministicId(`deliver:${messageId}`)])
      expect(yield* attempt(deps, cmd).pipe(Effect.provide(transports(deps.config)))).toEqual({ ack: true })
      const [row] = yield* Effect.promise(() => sql`SELECT status, skip_reason, attempts FROM messages WHERE id = ${messageId}`)
      expect(row).toMatchObject({ status: "skipped", skip_reason: "cancelled", attempts: 0 })
      expect(m.sink.mails.some((mail) => mail.messageId === header)).toBe(false)
    }), 120_000)
})
