import { Config, Context, Effect, Layer } from "effect"
import { AppConfig } from "../../core/config/AppConfig.ts"
import { Database } from "../../core/db/Database.ts"
import { CLOSE_GRACE_MS } from "../../core/loyalty/auction.ts"
import { told } from "../../streams/tell.ts"
import { publishDue, type SweepDeps } from "../runtime/dueSweep.ts"
import { messagePublisher } from "../runtime/OutboxRelay.ts"
import { periodic } from "../runtime/periodic.ts"
import { LoyaltyProtocol } from "./protocol.ts"

// Closes the auctions nobody bid on or read after their end: a close message for each due auction's actor, once.

/**
 * Each open auction of this deployment past its end and grace, not yet swept, gets one `auction_close` message,
 * written to the outbox in the transaction that marks it swept (rows another worker holds are skipped); the actor
 * closes it once.
 */
export const closeDueAuctions = (deps: SweepDeps, now: Date, limit = 500): Promise<number> =>
  publishDue(deps, (tx) => tx<Array<{ auction_id: string; tenant_id: string; sandbox: boolean }>>`
      WITH due AS (
        SELECT auction_id FROM loyalty_auctions
        WHERE status = 'open' AND NOT close_published AND ends_at <= ${new Date(now.getTime() - CLOSE_GRACE_MS)}
          AND (namespace IS NULL OR namespace = ${deps.namespace})
        ORDER BY ends_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
      UPDATE loyalty_auctions a SET close_published = true FROM due WHERE a.auction_id = due.auction_id
      RETURNING a.auction_id, a.tenant_id, a.sandbox`,
  (d) => told(deps, LoyaltyProtocol, "auctionClose", d, { member_id: d.auction_id }, `auction-close:${d.auction_id}`, now.getTime()))

/**
 * Every worker sweeps due auctions every `GEP_AUCTION_SWEEP_MS` (default 5 s), a fiber of this layer on the Clock; the
 * SKIP LOCKED marks keep it once.
 */
export class AuctionSweeper extends Context.Service<AuctionSweeper, { readonly closeDue: (now: Date) => Promise<number> }>()("app/loyalty/AuctionSweeper") {
  static readonly layer = Layer.effect(AuctionSweeper, Effect.gen(function*() {
    const app = yield* AppConfig
    const { sql } = yield* Database
    const publish = yield* messagePublisher
    const deps = { sql, namespace: app.namespace, partitions: app.partitions, publish }
    const closeDue = (now: Date) => closeDueAuctions(deps, now)
    const ms = yield* Config.Int("GEP_AUCTION_SWEEP_MS").pipe(Config.withDefault(5_000), Effect.orDie)
    yield* Effect.forkScoped(periodic({ name: "auction close sweep", span: "AuctionSweeper.closeDue", every: ms, run: closeDue }))
    return AuctionSweeper.of({ closeDue })
  }))
}
