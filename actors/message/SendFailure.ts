import { Data } from "effect"

/**
 * Why a provider call did not send: `temporary` (try again later: 4xx SMTP, 429, 5xx, a refused connection),
 * `permanent` (the provider refused this message for good), or `unknown` (the request may have been taken: a timeout
 * after it was written; WhatsApp has no idempotency key, so such a send waits for a status before any resend).
 */
export class SendFailure extends Data.TaggedError("SendFailure")<{
  readonly kind: "temporary" | "permanent" | "unknown"
  readonly code: string
  readonly message: string
  /** The address can never receive (hard bounce, a number not on WhatsApp): suppressed for every later send. */
  readonly hardBounce?: boolean
  /** The provider said when to come back (Retry-After). */
  readonly retryAfterMs?: number
}> {}
