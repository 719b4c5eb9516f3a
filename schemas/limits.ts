import { Context } from "effect"
import { HttpApiMiddleware } from "effect/http-api"
import { PayloadTooLarge } from "./errors.ts"

export const KiB = 1024
export const MiB = 1024 * KiB

/**
 * Body size limits of the core API (the spec leaves them open): 512 KiB for one object, twice what the largest real
 * one (a reservation with 20 guests and 100 extras, a call with a 200,000-character transcript) needs and half of what
 * one NATS message holds; 5 MiB for a batch, whose items are each held to the single limit.
 */
export const CORE_BODY_LIMIT = 512 * KiB
export const BATCH_BODY_LIMIT = 5 * MiB
/** The telephony provider's webhook: a whole call record, transcript included (truncated, never refused, past 200,000 characters). */
export const CTI_BODY_LIMIT = 1 * MiB

/**
 * Annotation of a group or an endpoint: the largest request body it reads, in bytes. Enforced while reading (a body
 * announced or found larger is cut off there, never read whole) and answered 413 in the core error shape. A family
 * with limits of its own annotates its group; an endpoint's annotation wins over its group's.
 */
export const BodyLimit = Context.Reference<number>("app/http/BodyLimit", { defaultValue: () => CORE_BODY_LIMIT })

/**
 * Applied to every endpoint of the Api (added after every group): reads the endpoint's `BodyLimit` and bounds the
 * body read to it.
 */
export class BodyLimits extends HttpApiMiddleware.Service<BodyLimits>()("app/http/BodyLimits", { error: PayloadTooLarge }) {}
