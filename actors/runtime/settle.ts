import type { JsMsg } from "@nats-io/jetstream"
import type { NatsConnection } from "@nats-io/transport-node"
import { Effect, Option, Schedule } from "effect"
import type { Sql } from "../../core/db/Database.ts"
import { errorText, log } from "../../core/observability/log.ts"
import { Metrics } from "../../core/observability/metrics.ts"
import type { ReplyExit } from "../../streams/ActorProtocol.ts"
import { encode, type Envelope, type Reply } from "../../streams/envelope.ts"
import { recordDeadLetter } from "./deadLetters.ts"
import type { Fence } from "./leases.ts"

// How a lane settles an envelope it took: the answer to its caller, the ack, or the dead letter.

/** Where an envelope came from: its partition's lease, and what to tell the partition when it is settled. */
export interface Source {
  readonly fence: Fence
  readonly abandoned: boolean
  /** The envelope was acked (applied, answered from the inbox, or dead-lettered), or dropped unacked. */
  readonly settled: (item: Item) => void
  /** The partition's lease turned out lost while applying. */
  readonly lost: () => void
}

export interface Item {
  readonly msg: JsMsg
  readonly envelope: Envelope
  readonly source: Source
}

/**
 * Acks a committed envelope. A connection lost meanwhile only means a redelivery, which the inbox answers: it must
 * not stop the lane, so nothing thrown here escapes.
 */
export const ack = (msg: JsMsg): void => {
  try {
    msg.ack()
  } catch (e) {
    log("warn", "ack not sent; the envelope will be redelivered and answered from the inbox", { seq: msg.seq, error: errorText(e) })
  }
}

/** The answer to the envelope's caller (a lost reply only makes the caller time out: 503, retried). */
export const reply = (nc: NatsConnection, envelope: Envelope, exit: ReplyExit): void => {
  const message: Reply = { envelope_id: envelope.id, exit }
  try {
    nc.publish(envelope.reply_to!, encode(message))
  } catch (e) {
    log("warn", "reply not sent", { envelope_id: envelope.id, error: errorText(e) })
  }
}

/**
 * Kept whole in dead_letters for an operator; the caller is answered with a defect (or, for a data fault, a
 * rejection); the message is acked. The write is retried every second while the database is away, unless the
 * partition is lost meanwhile (the envelope is the next owner's then).
 */
export const giveUp = (
  deps: { readonly sql: Sql; readonly nc: NatsConnection },
  actor: string,
  item: Item,
  error: string,
  attempts: number,
  answer: ReplyExit = { _tag: "Defect", message: "The request could not be applied and was recorded for an operator" }
): Effect.Effect<void> => {
  const { msg, envelope } = item
  return Effect.gen(function*() {
    const recorded = yield* Effect.tryPromise(() =>
      recordDeadLetter(deps.sql, msg, { envelopeId: envelope.id, tenantId: envelope.tenant_id, actor, error, attempts })
    ).pipe(
      Effect.tapError(() => Effect.sync(() => item.source.abandoned || msg.working())),
      Effect.retry({ schedule: Schedule.spaced("1 second"), while: () => !item.source.abandoned }),
      Effect.option
    )
    if (Option.isNone(recorded)) return item.source.settled(item)
    if (envelope.reply_to) reply(deps.nc, envelope, answer)
    ack(msg)
    item.source.settled(item)
    Metrics.processed.inc({ actor: envelope.actor, result: "dead_lettered" })
  })
}
