import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { randomUUID } from "node:crypto"
import { AppConfig } from "../../core/config/AppConfig.ts"
import { CLOSE_GRACE_MS } from "../../core/loyalty/auction.ts"
import { Api, CurrentPrincipal, type Principal } from "../../schemas/api.ts"
import { Conflict, NotFound } from "../../schemas/errors.ts"
import { AUCTION_MAX_DAYS, ExperienceCreated } from "../../schemas/loyaltyAuction.ts"
import { readAuction } from "./auctionReads.ts"
import { answeredAs, invalid, ok, spendRefusal } from "./edge.ts"
import { LoyaltyIngress } from "./ingress.ts"
import { retryKey } from "./requests.ts"

// Experience auctions. A bid: the ingress asks the bidder's actor for a bid hold (which also tells the auction through
// its outbox), then asks the auction actor to decide that hold's bid for the synchronous answer. The auction applies a
// hold's bid once, whichever of the two reaches it first, and releases the hold of a refused bid itself: a caller that
// goes away after the hold leaves nothing held for nothing.

const notFound = () => NotFound.of("No such experience", { experience_id: ["not found"] }, "EXPERIENCE_NOT_FOUND")

export const LoyaltyAuctionsLive = HttpApiBuilder.group(Api, "loyaltyAuctions", (handlers) =>
  Effect.gen(function*() {
    const { read, resolve, loyalty } = yield* LoyaltyIngress
    // An auction belongs to the deployment that created it: only that deployment's sweep closes it.
    const { namespace } = yield* AppConfig

    /** The auction as stored, closed first when its end and grace have passed (the lazy close; the sweep does the rest). */
    const current = Effect.fn("Loyalty.auction")(function*(p: Principal, experienceId: string) {
      const a = yield* read(p, (tx) => readAuction(tx, p, experienceId))
      if (a === undefined) return yield* notFound()
      if (a.status !== "open" || Date.now() < Date.parse(a.ends_at) + CLOSE_GRACE_MS) return a
      yield* loyalty(p).auctionClose({ member_id: experienceId }).pipe(answeredAs(spendRefusal))
      return (yield* read(p, (tx) => readAuction(tx, p, experienceId)))!
    })

    return handlers
      .handle("createExperience", Effect.fn("Loyalty.createExperience")(function*({ payload }) {
        const p = yield* CurrentPrincipal
        const ends = Date.parse(payload.ends_at)
        if (ends <= Date.now()) return yield* invalid({ ends_at: ["must be in the future"] })
        if (ends > Date.now() + AUCTION_MAX_DAYS * 86_400_000) return yield* invalid({ ends_at: [`must be at most ${AUCTION_MAX_DAYS} days away`] })
        const id = randomUUID()
        const a = yield* read(p, async (tx) => {
          await tx`INSERT INTO loyalty_auctions (auction_id, tenant_id, sandbox, name, description, hotel_id, starting_bid, min_increment, ends_at, namespace)
            VALUES (${id}, ${p.tenant_id}, ${p.sandbox}, ${payload.name.trim()}, ${payload.description ?? null}, ${payload.hotel_id ?? null},
              ${payload.starting_bid}, ${payload.min_increment}, ${new Date(ends).toISOString()}, ${namespace})`
          return readAuction(tx, p, id)
        })
        return new ExperienceCreated(ok(a!))
      }))
      .handle("experience", Effect.fn("Loyalty.experience")(function*({ params }) {
        const p = yield* CurrentPrincipal
        return ok(yield* current(p, params.experience_id))
      }))
      .handle("bid", Effect.fn("Loyalty.bid")(function*({ payload, headers }) {
        const p = yield* CurrentPrincipal
        const key = retryKey(payload.external_reference_id, headers["idempotency-key"])
        if (!key.ok) return yield* invalid(key.details)
        const memberId = yield* resolve(p, payload)
        const [auction, retried] = yield* read(p, async (tx) => [
          await readAuction(tx, p, payload.experience_id, false),
          (await tx`SELECT 1 FROM loyalty_holds WHERE tenant_id = ${p.tenant_id} AND sandbox = ${p.sandbox} AND kind = 'bid'
            AND external_reference_id = ${key.key}`).length > 0
        ] as const)
        if (auction === undefined) return yield* notFound()
        // Closed: refused before anything is held (a retry of a bid made before the close still gets its answer).
        if (auction.status === "closed" && !retried) {
          return yield* Conflict.of("AUCTION_CLOSED", "Bidding on this experience has ended", {
            experience_id: ["the auction is closed"], ends_at: auction.ends_at, current_high_bid: auction.current_high_bid
          })
        }
        const bids = loyalty(p)
        const held = yield* bids.bidHold({ member_id: memberId, auction_id: payload.experience_id, points: payload.bid_points, external_reference_id: key.key })
          .pipe(answeredAs(spendRefusal))
        const d = yield* bids.auctionBid({
          member_id: payload.experience_id, bidder_member_id: memberId, hold_id: held.hold_id, points: held.points_held, placed_at: held.placed_at
        }).pipe(answeredAs(spendRefusal))
        if (d.status === "refused") {
          const at = d.refused_at!
          return yield* d.refusal === "BID_TOO_LOW"
            ? Conflict.of("BID_TOO_LOW", `A bid must be at least ${at.min_next_bid} points`, { bid_points: [`must be at least ${at.min_next_bid}`], current_high_bid: at.current_high_bid, min_next_bid: at.min_next_bid })
            : Conflict.of("AUCTION_CLOSED", "Bidding on this experience has ended", { experience_id: ["the auction is closed"], ends_at: d.ends_at, current_high_bid: at.current_high_bid })
        }
        // points_held is this bid's hold (the member's total held is in member_points_held).
        return ok({
          ...held.balances, member_points_held: held.balances.points_held,
          bid_id: d.bid_id, status: d.status, experience_id: payload.experience_id, member_id: memberId, bid_points: held.points_held, hold_id: held.hold_id,
          points_held: d.status === "outbid" ? 0 : held.points_held, current_high_bid: d.current_high_bid, min_next_bid: d.min_next_bid, ends_at: d.ends_at,
          auction_status: d.auction_status, replaced_hold_id: held.replaced_hold_id, idempotent_replay: held.idempotent_replay
        })
      }))
  }))
