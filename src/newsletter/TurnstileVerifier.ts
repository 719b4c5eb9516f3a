import { Config, Context, Effect, Layer } from "effect"
import { randomUUID } from "node:crypto"

/** The verdict on a widget's Turnstile token. */
export type BotVerdict =
  | { readonly kind: "passed" }
  | { readonly kind: "failed"; readonly error_codes: ReadonlyArray<string> }
  /** Cloudflare did not answer usably (timeout, 5xx, not JSON): the sign-up fails closed, to be retried. */
  | { readonly kind: "unavailable" }

export interface VerifyRequest {
  readonly secret: string
  readonly token: string
  readonly remoteip: string | null
  /** Hostnames the token may have been solved on (the widget's allowed origins). */
  readonly hostnames: ReadonlyArray<string>
  readonly action: string
}

const TIMEOUT_MS = 3_000
const MAX_AGE_MS = 300_000

/**
 * Cloudflare Turnstile's server-side validation (siteverify): form fields `secret`, `response`, `remoteip`,
 * `idempotency_key`; one retry with the same idempotency key when an attempt gets no usable answer. A pass needs
 * `success`, a hostname of the allowed origins, the widget's action (when Cloudflare names one) and a solve at most
 * 5 minutes old. GEP_TURNSTILE_VERIFY_URL points elsewhere only for tests: the code path is the same.
 */
export class TurnstileVerifier extends Context.Service<TurnstileVerifier, {
  readonly verify: (r: VerifyRequest) => Effect.Effect<BotVerdict>
}>()("app/newsletter/TurnstileVerifier") {
  static readonly layer = Layer.effect(TurnstileVerifier, Effect.gen(function*() {
    const url = yield* Config.String("GEP_TURNSTILE_VERIFY_URL").pipe(Config.withDefault("https://challenges.cloudflare.com/turnstile/v0/siteverify"))

    const attempt = (form: URLSearchParams) => Effect.tryPromise({
      try: async () => {
        const res = await fetch(url, { method: "POST", body: form, signal: AbortSignal.timeout(TIMEOUT_MS) })
        if (res.status >= 500) return undefined
        const body = await res.json() as Record<string, unknown>
        return typeof body === "object" && body !== null && typeof body.success === "boolean" ? body : undefined
      },
      catch: () => undefined
    }).pipe(Effect.orElseSucceed(() => undefined))

    const verify = Effect.fn("TurnstileVerifier.verify")(function*(r: VerifyRequest) {
      const form = new URLSearchParams({ secret: r.secret, response: r.token, idempotency_key: randomUUID() })
      if (r.remoteip !== null) form.set("remoteip", r.remoteip)
      const body = (yield* attempt(form)) ?? (yield* attempt(form))
      if (body === undefined) return { kind: "unavailable" } as BotVerdict
      if (body.success !== true) {
        const codes = Array.isArray(body["error-codes"]) ? body["error-codes"].filter((c): c is string => typeof c === "string") : []
        return { kind: "failed", error_codes: codes.length > 0 ? codes : ["verification-failed"] } as BotVerdict
      }
      const problems: Array<string> = []
      if (typeof body.hostname !== "string" || !r.hostnames.includes(body.hostname.toLowerCase())) problems.push("hostname-mismatch")
      if (typeof body.action === "string" && body.action !== "" && body.action !== r.action) problems.push("action-mismatch")
      const solved = typeof body.challenge_ts === "string" ? Date.parse(body.challenge_ts) : NaN
      if (!Number.isNaN(solved) && Date.now() - solved > MAX_AGE_MS) problems.push("challenge-too-old")
      return problems.length === 0 ? { kind: "passed" } as BotVerdict : { kind: "failed", error_codes: problems } as BotVerdict
    })
    return TurnstileVerifier.of({ verify })
  }))
}
