import { Config, Context, Effect, Layer } from "effect"
import { randomUUID } from "node:crypto"
import { readEmailChannel, senderFor } from "../../core/channel/repository.ts"
import { Database } from "../../core/db/Database.ts"
import { signInEmailBucket } from "../../core/privacy/rateBuckets.ts"
import { RateLimiter } from "../auth/RateLimiter.ts"
import { CodeMailer } from "./CodeMailer.ts"
import { digest, newSignInCode, sameDigest } from "./secrets.ts"

/** A code lives 10 minutes and allows 5 wrong tries; then the member asks for a new one. */
export const CODE_TTL_MS = 10 * 60_000
export const MAX_ATTEMPTS = 5
/**
 * Sign-in emails per minute: per address (a mailbox is not flooded) and per client IP (addresses are not probed).
 * GEP_SSO_CODES_PER_EMAIL_PER_MINUTE / GEP_SSO_CODES_PER_IP_PER_MINUTE change them (the bench, from one address).
 */
const Limits = Config.all({
  perEmail: Config.Int("GEP_SSO_CODES_PER_EMAIL_PER_MINUTE").pipe(Config.withDefault(5)),
  perIp: Config.Int("GEP_SSO_CODES_PER_IP_PER_MINUTE").pipe(Config.withDefault(30))
})

export interface Who {
  readonly tenant_id: string
  readonly sandbox: boolean
  readonly client_name: string
}

export type Issued = { readonly kind: "sent" } | { readonly kind: "rate_limited"; readonly retryAfter: number } | { readonly kind: "unavailable" }
export type Checked =
  | { readonly kind: "signed_in"; readonly member_id: string }
  | { readonly kind: "wrong"; readonly attemptsLeft: number }
  | { readonly kind: "expired" }

/**
 * The passwordless sign-in's one-time codes: stored hashed (salted with the interaction), one per interaction, sent
 * through the tenant's email channel. The answer to an email is the same whether or not it belongs to a member.
 */
export class SignInCodes extends Context.Service<SignInCodes, {
  readonly issue: (interactionId: string, who: Who, email: string, ip: string) => Effect.Effect<Issued>
  readonly check: (interactionId: string, code: string) => Effect.Effect<Checked>
}>()("app/oidc/SignInCodes") {
  static readonly layer = Layer.effect(SignInCodes, Effect.gen(function*() {
    const db = yield* Database
    const limiter = yield* RateLimiter
    const email = yield* CodeMailer
    const limits = yield* Limits

    const issue = Effect.fn("SignInCodes.issue")(function*(interactionId: string, who: Who, address: string, ip: string) {
      for (const [bucket, limit] of [[`oidc-ip:${ip}`, limits.perIp], [signInEmailBucket(who.tenant_id, address), limits.perEmail]] as const) {
        const d = yield* limiter.take(bucket, limit)
        if (!d.allowed) return { kind: "rate_limited", retryAfter: d.retryAfter } satisfies Issued
      }
      const code = newSignInCode()
      const scope = { tenant_id: who.tenant_id, sandbox: who.sandbox }
      // Without an email channel no code can leave for anyone: answered alike for members and others.
      const channel = yield* db.query((sql) => readEmailChannel(sql, scope))
      if (channel === null) {
        yield* Effect.logWarning("sign-in code not sent: the tenant has no email channel").pipe(Effect.annotateLogs({ tenant_id: who.tenant_id }))
        return { kind: "unavailable" } satisfies Issued
      }
      const member = yield* db.query(async (sql) => {
        const [m] = await sql`SELECT member_id FROM loyalty_members
          WHERE tenant_id = ${who.tenant_id} AND sandbox = ${who.sandbox} AND email = ${address} AND kind = 'member' AND status = 'active'`
        await sql`INSERT INTO oidc_sign_in_codes (interaction_id, tenant_id, email, member_id, code_hash, expires_at)
          VALUES (${interactionId}, ${who.tenant_id}, ${address}, ${(m?.member_id as string | undefined) ?? null}, ${digest(code, interactionId)}, ${new Date(Date.now() + CODE_TTL_MS)})
          ON CONFLICT (interaction_id) DO UPDATE SET email = excluded.email, member_id = excluded.member_id, code_hash = excluded.code_hash,
            attempts = 0, expires_at = excluded.expires_at, created_at = now()`
        return m
      })
      if (member === undefined) return { kind: "sent" } satisfies Issued
      const sender = senderFor(channel, null)
      const sent = yield* email.send({
        messageId: randomUUID(),
        from: { address: sender.from_address, name: sender.from_name ?? null },
        replyTo: sender.reply_to ?? null,
        to: address,
        subject: `${code} is your ${who.client_name} sign-in code`,
        text: `Your sign-in code for ${who.client_name} is ${code}.\nIt is valid for 10 minutes. If you did not ask for it, ignore this email.\n`,
        html: null,
        headers: { "auto-submitted": "auto-generated" }
      }).pipe(Effect.as(true), Effect.catch((e) =>
        Effect.logWarning("sign-in code email failed").pipe(Effect.annotateLogs({ code: e.code }), Effect.as(false))))
      return (sent ? { kind: "sent" } : { kind: "unavailable" }) satisfies Issued
    })

    const check = Effect.fn("SignInCodes.check")(function*(interactionId: string, code: string) {
      return yield* db.transaction(async (tx): Promise<Checked> => {
        const [row] = await tx`SELECT member_id, code_hash, attempts FROM oidc_sign_in_codes
          WHERE interaction_id = ${interactionId} AND expires_at > now() FOR UPDATE`
        if (row === undefined || (row.attempts as number) >= MAX_ATTEMPTS) return { kind: "expired" }
        if (row.member_id !== null && /^[0-9]{6}$/.test(code) && sameDigest(row.code_hash as Uint8Array, digest(code, interactionId))) {
          await tx`DELETE FROM oidc_sign_in_codes WHERE interaction_id = ${interactionId}`
          return { kind: "signed_in", member_id: row.member_id as string }
        }
        await tx`UPDATE oidc_sign_in_codes SET attempts = attempts + 1 WHERE interaction_id = ${interactionId}`
        const left = MAX_ATTEMPTS - (row.attempts as number) - 1
        return left > 0 ? { kind: "wrong", attemptsLeft: left } : { kind: "expired" }
      })
    })
    return SignInCodes.of({ issue, check })
  }))
}
