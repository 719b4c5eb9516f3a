import * as ActorProtocol from "../../streams/ActorProtocol.ts"
import { LegacyApply } from "./legacyApply.ts"
import { B2bMessages } from "./writeProtocol.ts"

export * from "./refusalProtocol.ts"
export * from "./writeProtocol.ts"

/**
 * The b2b actor: an account (keyed by its id, `account_id`, which every write carries) with its codes, contacts and
 * deals. One message per write. Changes that reach across accounts (the tree, code uniqueness) are serialised per
 * tenant and mode inside the actor's transaction (actor.ts).
 */
export const B2bProtocol = ActorProtocol.make("b2b", {
  key: (p) => p.account_id,
  messages: {
    ...B2bMessages,
    /** Deprecated: the writes as one op-union message, for a rolling upgrade; remove in the release after this one. */
    apply: LegacyApply
  }
})
