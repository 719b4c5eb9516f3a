import { Schema } from "effect"
import { BroadcastStatuses } from "../../schemas/broadcast.ts"
import * as ActorProtocol from "../../streams/ActorProtocol.ts"

export const BroadcastActions = ["schedule", "send", "pause", "resume", "cancel"] as const
export type BroadcastAction = typeof BroadcastActions[number]

/** An operator's action on a broadcast (the API's schedule, send, pause, resume and cancel). */
export const Act = Schema.Struct({ broadcast_id: Schema.String, action: Schema.Literals(BroadcastActions) })
export type Act = typeof Act.Type

export const Acted = Schema.Struct({
  broadcast_id: Schema.String,
  status: Schema.Literals(BroadcastStatuses),
  /** False: the broadcast already was where the action leads (a repeat); nothing changed. */
  changed: Schema.Boolean
})
export type Acted = typeof Acted.Type

/**
 * The next unit of work of a broadcast (a snapshot chunk, a dispatch chunk, a settling check, the scheduled start),
 * published by the broadcast sweep when its `next_step_at` is due and by the actor itself to go straight on. `seq` is
 * the row's `step_seq`: a step for another seq is stale and changes nothing, and its envelope id names the seq, so a
 * step published twice is applied once.
 */
export const Step = Schema.Struct({ broadcast_id: Schema.String, seq: Schema.Number })
export type Step = typeof Step.Type

export const Stepped = Schema.Struct({ applied: Schema.Boolean })

/** An action refused: the edge answers `status` in the core shape naming `field`. Nothing changed. */
export class BroadcastRefused extends Schema.TaggedError<BroadcastRefused>()("BroadcastRefused", {
  status: Schema.Literals([404, 409, 422]),
  code: Schema.String,
  field: Schema.String,
  message: Schema.String
}) {}

/**
 * The broadcast actor, one per broadcast: every action and step of a broadcast applies in order, so a pause and a
 * dispatch chunk never race and the snapshot cursor moves in the transaction that writes its recipients.
 */
export const BroadcastProtocol = ActorProtocol.make("broadcast", {
  key: (p) => p.broadcast_id,
  messages: {
    act: ActorProtocol.message({ payload: Act, success: Acted, error: BroadcastRefused }),
    step: ActorProtocol.message({ payload: Step, success: Stepped })
  }
})
