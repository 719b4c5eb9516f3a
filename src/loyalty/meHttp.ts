import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Database, withTenant } from "../../core/db/Database.ts"
import { Api, type Principal } from "../../schemas/api.ts"
import { Unauthorized } from "../../schemas/errors.ts"
import { CurrentMember, type Member } from "../../schemas/oidcApi.ts"
import { digest, newClubCode } from "../oidc/secrets.ts"
import { pageRequest } from "../http/paging.ts"
import { ledgerPage, ok } from "./edge.ts"
import { readMember, readTransactions } from "./reads.ts"

/** A club code is handed over by the member's browser at once: two minutes is plenty. */
export const CLUB_CODE_TTL_S = 120

/** The loyalty reads (src/loyalty/reads.ts) take a principal: the member's tenant and mode, as a key would carry them. */
export const principalOf = (m: { tenant_id: string; sandbox: boolean }): Principal =>
  ({ key_id: "sso", tenant_id: m.tenant_id, sandbox: m.sandbox, scopes: [], rate_limit_per_minute: null })

/** What a member (or a club reading for it) sees of the account: tier and points, no internals. */
export const balanceOf = (m: NonNullable<Awaited<ReturnType<typeof readMember>>>) => ({
  member_id: m.member_id, tier: m.tier, points_balance: m.points_balance, points_available: m.points_available,
  points_pending: m.points_pending, lifetime_points: m.lifetime_points, tier_progress: m.tier_progress, next_expiry: m.next_expiry
})

const signedOut = Unauthorized.of("The member no longer exists in this programme")

/** The signed-in member's own reads (SSO access token), and the club code they hand to a partner site. */
export const LoyaltyMeLive = HttpApiBuilder.group(Api, "loyaltyMe", (handlers) =>
  Effect.gen(function*() {
    const db = yield* Database
    const read = <A>(m: Member, f: (tx: Parameters<Parameters<typeof withTenant>[2]>[0], p: Principal) => Promise<A>) =>
      db.query((sql) => withTenant(sql, m.tenant_id, (tx) => f(tx, principalOf(m))))
    return handlers
      .handle("balance", Effect.fn("LoyaltyMe.balance")(function*() {
        const m = yield* CurrentMember
        const member = yield* read(m, (tx, p) => readMember(tx, p, m.member_id))
        if (member === undefined) return yield* signedOut
        return ok(balanceOf(member))
      }))
      .handle("transactions", Effect.fn("LoyaltyMe.transactions")(function*({ query }) {
        const m = yield* CurrentMember
        const page = yield* pageRequest(query)
        return ok(ledgerPage(m.member_id, yield* read(m, (tx, p) => readTransactions(tx, p, m.member_id, page))))
      }))
      .handle("clubCode", Effect.fn("LoyaltyMe.clubCode")(function*() {
        const m = yield* CurrentMember
        const code = newClubCode()
        yield* read(m, (tx) => tx`INSERT INTO loyalty_club_codes (code_hash, tenant_id, sandbox, member_id, grant_id, expires_at)
          VALUES (${digest(code)}, ${m.tenant_id}, ${m.sandbox}, ${m.member_id}, ${m.grant_id}, ${new Date(Date.now() + CLUB_CODE_TTL_S * 1000)})`)
        return ok({ code, expires_in: CLUB_CODE_TTL_S })
      }))
  }))
