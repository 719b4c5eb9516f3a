import { Effect } from "effect"
import { LoyaltyRefused, type RefusalCode } from "./protocol.ts"

/** Refuses a write: nothing of it is stored (every handler checks before its first write). */
export const refuse = (code: RefusalCode, message: string, details: Record<string, unknown> = {}) =>
  Effect.fail(new LoyaltyRefused({ code, message, details }))
