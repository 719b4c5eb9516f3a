import * as ActorProtocol from "../../streams/ActorProtocol.ts"
import { AuctionMessages } from "./auctionProtocol.ts"
import { CreditMessages } from "./creditProtocol.ts"
import { HouseholdMessages } from "./householdProtocol.ts"
import { LegacyApply } from "./legacyApply.ts"
import { MemberMessages } from "./memberProtocol.ts"

export { Balances } from "./balances.ts"
export * from "./auctionProtocol.ts"
export * from "./creditProtocol.ts"
export * from "./householdProtocol.ts"
export * from "./memberProtocol.ts"
export * from "./refusalProtocol.ts"

/**
 * The loyalty actor: one per wallet, keyed by `member_id`, which every message carries: a member's id, a household's
 * (its pooled wallet) or an experience's (its auction). The ingress resolves an email to the member's id first, so
 * every write of one wallet is applied in order by one owner and a redemption always sees the one before it. One
 * message per command, each with its own answer and the refusal codes it may answer.
 */
export const LoyaltyProtocol = ActorProtocol.make("loyalty", {
  key: (p) => p.member_id,
  messages: {
    ...MemberMessages,
    ...CreditMessages,
    ...HouseholdMessages,
    ...AuctionMessages,
    /** Deprecated: the commands as one op-union message, for a rolling upgrade; remove in the release after this one. */
    apply: LegacyApply
  }
})

export type LoyaltyMessages = typeof LoyaltyProtocol.messages
