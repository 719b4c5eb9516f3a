import type { JsMsg } from "@nats-io/jetstream"
import { randomUUID } from "node:crypto"
import { reservedHeaderReason } from "../../schemas/webhook.ts"
import type { Sql } from "../../core/db/Database.ts"
import { errorText, log } from "../../core/observability/log.ts"
import type { Resolver } from "../../core/webhook/destination.ts"
import type { SubscriptionRow } from "../../core/webhook/repository.ts"
import { decryptSecret } from "../../core/webhook/secrets.ts"
import { signatureHeader } from "../../core/webhook/signature.ts"
import { DeliveryJobs } from "../../streams/topics.ts"
import { disableSubscription, loadTarget, recordAttempt } from "./deliveryLog.ts"
import type { DeliveryJob } from "./job.ts"
import { outcomeOf, retryWaitMs } from "./retry.ts"
import { postWebhook } from "./send.ts"
import { Metrics } from "../../core/observability/metrics.ts"

export interface AttemptDeps {
  readonly sql: Sql
  readonly encryptionKey: () => Buffer
  readonly allowLoopback: boolean
  readonly timeoutMs: number
  readonly resolve?: Resolver
  /** The layer's Clock: the signature's timestamp, which secrets sign, and when a retry is due. */
  readonly now: () => Date
}

/** Redelivery delay when the attempt could not even start (database away): not counted as an attempt. */
const INFRA_RETRY_MS = 5_000

/** Secrets that sign now: the current one, and the previous one during the 24 h after a rotation. */
const signingSecrets = (s: SubscriptionRow, key: Buffer, now: Date): Array<string> => {
  const secrets = [decryptSecret(key, s.secret_encrypted, s.id)]
  if (s.previous_secret_encrypted && s.previous_secret_expires_at && s.previous_secret_expires_at > now) {
    secrets.push(decryptSecret(key, s.previous_secret_encrypted, s.id))
  }
  return secrets
}

/**
 * Custom headers first, then the platform's: a reserved name (any case) in stored custom headers is dropped, so a
 * subscription can never replace the signature, event, delivery or timestamp headers, whatever its row holds.
 */
export const deliveryHeaders = (custom: Record<string, string>, platform: Record<string, string>): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(custom)) if (reservedHeaderReason(name) === undefined) out[name] = value
  for (const [name, value] of Object.entries(platform)) out[name.toLowerCase()] = value
  return out
}

/** One delivery attempt of a job; acks, naks with the policy's delay, or terminates the message. */
export const deliverOne = async (deps: AttemptDeps, m: JsMsg): Promise<void> => {
  let job: DeliveryJob
  try {
    job = DeliveryJobs.decode(m.data)
  } catch (e) {
    log("error", "webhook job undecodable, dropped", { seq: m.seq, error: errorText(e) })
    return m.term()
  }
  const ids = { tenant_id: job.tenant_id, subscription_id: job.subscription_id, event_id: job.event_id }
  let target
  try {
    target = await loadTarget(deps.sql, job.subscription_id, job.event_id, job.run_id ?? null)
  } catch (e) {
    log("warn", "webhook attempt deferred", { ...ids, error: errorText(e) })
    return m.nak(INFRA_RETRY_MS)
  }
  if (!target || target.subscription.tenant_id !== job.tenant_id) {
    log("info", "webhook job dropped: subscription deleted", ids)
    return m.term()
  }
  const s = target.subscription
  const attempt = target.previousAttempts + 1
  const base = {
    id: randomUUID(), subscription: s, event_id: job.event_id, event_type: job.event_type, attempt,
    trigger: job.trigger ?? "event", run_id: job.run_id ?? null
  }
  if (!s.enabled) {
    await recordAttempt(deps.sql, { ...base, outcome: "skipped", response_status: null, error: `subscription disabled${s.disabled_reason ? ` (${s.disabled_reason})` : ""}`, duration_ms: 0, next_attempt_at: null })
      .catch((e) => log("warn", "webhook attempt not recorded", { ...ids, error: errorText(e) }))
    return m.term()
  }

  const now = deps.now()
  const timestamp = now.toISOString()
  const headers = deliveryHeaders(s.headers, {
    "content-type": "application/json",
    "user-agent": "GEP-Webhooks/1.0",
    "x-webhook-event": job.event_type,
    "x-webhook-event-id": job.event_id,
    "x-webhook-delivery": base.id,
    "x-webhook-timestamp": timestamp,
    "x-webhook-signature": signatureHeader(signingSecrets(s, deps.encryptionKey(), now), timestamp, job.body)
  })
  const result = await postWebhook(new URL(s.url), headers, job.body, { timeoutMs: deps.timeoutMs, allowLoopback: deps.allowLoopback, ...(deps.resolve ? { resolve: deps.resolve } : {}) })
  const status = result.kind === "response" ? result.status : undefined
  const outcome = outcomeOf(status)
  const retry = outcome === "failed" && attempt < s.max_attempts
  const waitMs = retry ? retryWaitMs(attempt, s, result.kind === "response" ? result.retryAfter : undefined) : 0
  const error = result.kind === "error" ? result.error : outcome === "succeeded" ? null : `HTTP ${status}${result.excerpt ? `: ${result.excerpt.slice(0, 200)}` : ""}`
  try {
    await recordAttempt(deps.sql, {
      ...base, outcome, response_status: status ?? null, error, duration_ms: result.durationMs,
      next_attempt_at: retry ? new Date(deps.now().getTime() + waitMs) : null
    })
    if (outcome === "gone") await disableSubscription(deps.sql, s.id, "gone")
  } catch (e) {
    log("warn", "webhook attempt not recorded", { ...ids, attempt, error: errorText(e) })
  }
  Metrics.webhookAttempts.inc({ result: outcome === "failed" && retry ? "retry" : outcome })
  log(outcome === "succeeded" ? "debug" : "info", "webhook attempt", { ...ids, attempt, outcome, status, host: new URL(s.url).host, duration_ms: result.durationMs, retry_in_ms: retry ? waitMs : undefined, error: error ?? undefined })
  if (outcome === "succeeded") return m.ack()
  if (retry) return m.nak(waitMs)
  if (outcome === "failed") log("warn", "webhook given up", { ...ids, attempts: attempt })
  m.term()
}
