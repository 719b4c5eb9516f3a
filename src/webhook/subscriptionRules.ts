import { DefaultRetryPolicy, type CreateWebhookRequest, type UpdateWebhookRequest } from "../../schemas/webhook.ts"
import { checkHost, parseTargetUrl, policyFor, type Resolver } from "../../core/webhook/destination.ts"
import type { SubscriptionFields, SubscriptionRow } from "../../core/webhook/repository.ts"
import { Unprocessable, ValidationFailed } from "../../schemas/errors.ts"
import { isUuid } from "../../schemas/common.ts"

/** Why a subscription is refused: malformed (400) or well-formed but not allowed (422). The handler fails with it. */
export type Refusal = ValidationFailed | Unprocessable

/**
 * A subscription URL, checked as the deliverer will reach it: syntax and scheme (400), then every address its host
 * resolves to now (422 URL_NOT_ALLOWED). Delivery checks again at connect time: DNS may change after creation.
 */
export const checkSubscriptionUrl = async (raw: string, allowLoopback: boolean, resolve?: Resolver): Promise<Refusal | undefined> => {
  const parsed = parseTargetUrl(raw, allowLoopback)
  if (!parsed.ok) {
    const hint = !allowLoopback && /^http:/i.test(raw) ? LOOPBACK_HINT : ""
    return ValidationFailed.of(`Invalid request: url ${parsed.problem}${hint}`, { url: [parsed.problem] })
  }
  const host = await checkHost(parsed.url.hostname, policyFor(parsed.url, allowLoopback), resolve)
  if (!host.ok) {
    const message = `is not allowed: ${host.reason}`
    const hint = !allowLoopback && host.range === "loopback" ? LOOPBACK_HINT : ""
    return Unprocessable.of("URL_NOT_ALLOWED", `The webhook url ${message}${hint}`, { url: [message] })
  }
  return undefined
}

/**
 * The development switch, named in the refusals a developer meets when pointing a webhook at a receiver on their own
 * machine (the message only: codes and `details` are the contract partners' code reads, and stay as they were).
 */
export const LOOPBACK_HINT =
  ". For a receiver on this machine in development, start the platform with GEP_WEBHOOKS_ALLOW_LOOPBACK=1: it allows loopback targets, over plain http too (never in production)"

const backoffProblem = (f: SubscriptionFields): ValidationFailed | undefined =>
  f.max_backoff_seconds < f.initial_backoff_seconds
    ? ValidationFailed.of("Invalid request: retry_policy.max_backoff_seconds must not be less than initial_backoff_seconds", {
      "retry_policy.max_backoff_seconds": ["must not be less than initial_backoff_seconds"]
    })
    : undefined

export const fieldsForCreate = (r: CreateWebhookRequest): SubscriptionFields | ValidationFailed => {
  const fields: SubscriptionFields = {
    url: r.url,
    event_types: r.event_types,
    headers: r.headers ?? {},
    enabled: r.enabled ?? true,
    disabled_reason: null,
    description: r.description ?? null,
    max_attempts: r.retry_policy?.max_attempts ?? DefaultRetryPolicy.max_attempts,
    initial_backoff_seconds: r.retry_policy?.initial_backoff_seconds ?? DefaultRetryPolicy.initial_backoff_seconds,
    max_backoff_seconds: r.retry_policy?.max_backoff_seconds ?? DefaultRetryPolicy.max_backoff_seconds
  }
  return backoffProblem(fields) ?? fields
}

/** Fields sent replace stored ones; re-enabling clears the reason the platform disabled it for. */
export const fieldsForUpdate = (row: SubscriptionRow, r: UpdateWebhookRequest): SubscriptionFields | ValidationFailed => {
  const enabled = r.enabled ?? row.enabled
  const fields: SubscriptionFields = {
    url: r.url ?? row.url,
    event_types: r.event_types ?? row.event_types,
    headers: r.headers ?? row.headers,
    enabled,
    disabled_reason: enabled ? null : r.enabled === false ? null : row.disabled_reason,
    description: r.description !== undefined ? r.description : row.description,
    max_attempts: r.retry_policy?.max_attempts ?? row.max_attempts,
    initial_backoff_seconds: r.retry_policy?.initial_backoff_seconds ?? row.initial_backoff_seconds,
    max_backoff_seconds: r.retry_policy?.max_backoff_seconds ?? row.max_backoff_seconds
  }
  return backoffProblem(fields) ?? fields
}

export const isRefusal = (x: unknown): x is Refusal => x instanceof ValidationFailed || x instanceof Unprocessable

export { isUuid }
