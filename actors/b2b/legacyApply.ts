import { opUnionMessage } from "../runtime/opUnion.ts"
import { B2bRefused } from "./refusalProtocol.ts"
import { B2bMessages } from "./writeProtocol.ts"

// DEPRECATED: remove in the release after this one (with `apply` in protocol.ts and actor.ts).
//
// Before one message per write, every B2B write was the one message `apply`, its payload a union told apart by `op`,
// its answer another. During a rolling upgrade old ingresses still send it (workers are upgraded first, README
// "Upgrades"): the new workers answer it, in the old shape. Nothing of this release sends it.

/** Each message's `op` in the old union: its command's and its result's. */
export const LegacyOps = {
  createAccount: { command: "create_account", result: "account" },
  updateAccount: { command: "update_account", result: "account" },
  addContact: { command: "add_contact", result: "contact" },
  createDeal: { command: "create_deal", result: "deal" },
  updateDeal: { command: "update_deal", result: "deal" }
} as const

/** The old `apply`: any write with its `op`, answered with the result's `op`; refused with any code. */
export const LegacyApply = opUnionMessage(B2bMessages, LegacyOps, B2bRefused)
