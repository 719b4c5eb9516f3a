import { Clock, Config, Context, Effect, Layer } from "effect"
import { createHash, randomUUID } from "node:crypto"
import { readEmailChannel, senderFor } from "../../core/channel/repository.ts"
import { Database } from "../../core/db/Database.ts"
import { RateLimited, Unprocessable } from "../../schemas/errors.ts"
import type { Session } from "../../schemas/staff.ts"
import { RateLimiter } from "../auth/RateLimiter.ts"
import { CodeMailer } from "../oidc/CodeMailer.ts"
import { digest, newSignInCode, sameDigest } from "../oidc/secrets.ts"
import { Audit } from "./Audit.ts"
import { StaffSessions } from "./StaffSessions.ts"
import { verifyCode } from "./verifyCode.ts"

/** A code lives 10 minutes and allows 5 wrong tries (over all the address's open codes); then a new one is asked for. */
export const CODE_TTL_MS = 10 * 60_000
export const MAX_ATTEMPTS = 5

/**
 * Codes asked for and tried per minute: per address (a mailbox is not flooded, a code not guessed) and per client IP
 * (addresses are not probed). GEP_STAFF_CODES_PER_EMAIL_PER_MINUTE / GEP_STAFF_CODES_PER_IP_PER_MINUTE change them.
 */
const Limits = Config.all({
  perEmail: Config.Int("GEP_STAFF_CODES_PER_EMAIL_PER_MINUTE").pipe(Config.withDefault(5)),
  perIp: Config.Int("GEP_STAFF_CODES_PER_IP_PER_MINUTE").pipe(Config.withDefault(30))
})

/** The rate-limit bucket of an address: by its digest, so the shared counters never hold the address. */
const emailBucket = (kind: string, email: string) => `staff-${kind}:${createHash("sha256").update(email, "utf8").digest("hex")}`

export interface SignedIn {
  readonly token: string
  readonly session: Session
}

/**
 * The staff sign-in: a 6-digit code emailed through each account's email channel where the address is an active
 * staff member, stored as a digest salted with its row id; exchanged for a session. The answer to a request is the
 * same for any address, and comes before any email is sent (the time it takes tells nothing either).
 */
export class StaffSignIn extends Context.Service<StaffSignIn, {
  readonly request: (email: string, ip: string) => Effect.Effect<void, RateLimited>
  readonly verify: (email: string, code: string, ip: string) => Effect.Effect<SignedIn, Unprocessable | RateLimited>
}>()("app/staff/StaffSignIn") {
  static readonly layer = Layer.effect(StaffSignIn, Effect.gen(function*() {
    const db = yield* Database
    const limiter = yield* RateLimiter
    const mailer = yield* CodeMailer
    const sessions = yield* StaffSessions
    const audit = yield* Audit
    const limits = yield* Limits
    const scope = yield* Effect.scope

    const limit = Effect.fn("StaffSignIn.limit")(function*(buckets: ReadonlyArray<readonly [string, number]>) {
      for (const [bucket, perMinute] of buckets) {
        const d = yield* limiter.take(bucket, perMinute)
        if (!d.allowed) return yield* RateLimited.of(d.retryAfter)
      }
    })

    /** One account's code: its row replaces the member's open ones, then the email leaves through that account's channel. */
    const sendCode = Effect.fn("StaffSignIn.sendCode")(function*(member: { staff_id: string; tenant_id: string; tenant_name: string }, email: string) {
      const now = yield* Clock.currentTimeMillis
      const channel = yield* db.query((sql) => readEmailChannel(sql, { tenant_id: member.tenant_id, sandbox: false }))
      if (channel === null) {
        return yield* Effect.logWarning("staff sign-in code not sent: the account has no email channel").pipe(Effect.annotateLogs({ tenant_id: member.tenant_id }))
      }
      const code = newSignInCode()
      const id = randomUUID()
      yield* db.transaction(async (tx) => {
        await tx`DELETE FROM staff_sign_in_codes WHERE staff_id = ${member.staff_id} OR expires_at <= ${new Date(now)}`
        await tx`INSERT INTO staff_sign_in_codes (id, tenant_id, staff_id, code_hash, expires_at, created_at)
          VALUES (${id}, ${member.tenant_id}, ${member.staff_id}, ${digest(code, id)}, ${new Date(now + CODE_TTL_MS)}, ${new Date(now)})`
      })
      const sender = senderFor(channel, null)
      yield* mailer.send({
        messageId: randomUUID(),
        from: { address: sender.from_address, name: sender.from_name ?? null },
        replyTo: sender.reply_to ?? null,
        to: email,
        subject: `${code} is your ${member.tenant_name} console sign-in code`,
        text: `Your code to sign in to the ${member.tenant_name} console is ${code}.\n` +
          "It is valid for 10 minutes. If you did not ask for it, ignore this email.\n",
        html: null,
        headers: { "auto-submitted": "auto-generated" }
      }).pipe(Effect.catch((e) => Effect.logWarning("staff sign-in code email failed").pipe(Effect.annotateLogs({ code: e.code }))))
    })

    const request = Effect.fn("StaffSignIn.request")(function*(email: string, ip: string) {
      const address = email.trim().toLowerCase()
      yield* limit([[`staff-ip:${ip}`, limits.perIp], [emailBucket("email", address), limits.perEmail]])
      // Across accounts: the address may be staff of several (each gets its own code, naming it).
      const work = Effect.gen(function*() {
        const members = yield* db.query((sql) => sql`
          SELECT a.id AS staff_id, a.tenant_id, t.name AS tenant_name FROM staff_accounts a JOIN tenants t ON t.id = a.tenant_id
          WHERE a.email = ${address} AND a.removed_at IS NULL`)
        for (const m of members) yield* sendCode(m as never, address)
      }).pipe(Effect.catchCause((cause) => Effect.logWarning("staff sign-in codes not sent", cause)))
      yield* Effect.forkIn(work, scope)
    })

    const verify = Effect.fn("StaffSignIn.verify")(function*(email: string, code: string, ip: string) {
      const address = email.trim().toLowerCase()
      yield* limit([[`staff-verify-ip:${ip}`, limits.perIp], [emailBucket("verify", address), limits.perEmail * MAX_ATTEMPTS]])
      const now = yield* Clock.currentTimeMillis
      const outcome = yield* db.transaction((tx) => verifyCode(tx, address, code, now, {
        maxAttempts: MAX_ATTEMPTS,
        matches: (row) => sameDigest(row.code_hash, digest(code, row.id)),
        signIn: (row) => sessions.create(tx, row.staff_id, row.tenant_id, now)
      }))
      if (outcome.kind === "wrong") {
        return yield* Unprocessable.of("INVALID_CODE", "Invalid request: code is not the code we sent", {
          code: ["is not the code we sent"], attempts_left: outcome.attemptsLeft
        })
      }
      if (outcome.kind === "expired") {
        return yield* Unprocessable.of("CODE_EXPIRED", "Invalid request: code has expired or was used: ask for a new one", {
          code: ["has expired or was used: ask for a new one"]
        })
      }
      const live = yield* sessions.authenticate(outcome.token)
      if (live === undefined) return yield* Effect.die(new Error("a session just created was not found"))
      yield* audit.record({
        scope: { tenant_id: outcome.tenant_id, sandbox: false }, actor: { type: "staff", id: outcome.staff_id },
        action: "staff.signed_in", contact_id: null, details: {}
      }).pipe(Effect.orDie)
      return { token: outcome.token, session: live.session } satisfies SignedIn
    })

    return StaffSignIn.of({ request, verify })
  }))
}
