import { Config as EffectConfig, Context, Effect, Layer } from "effect"
import { AppConfig } from "../../core/config/AppConfig.ts"
import { Database } from "../../core/db/Database.ts"
import { told } from "../../streams/tell.ts"
import { publishDue, type SweepDeps } from "../runtime/dueSweep.ts"
import { messagePublisher } from "../runtime/OutboxRelay.ts"
import { periodic } from "../runtime/periodic.ts"
import { BroadcastProtocol } from "./protocol.ts"

interface Due {
  readonly id: string
  readonly tenant_id: string
  readonly sandbox: boolean
  readonly step_seq: number
}

/**
 * Publishes the step of every broadcast of this deployment whose next step is due (a scheduled start, a paced
 * dispatch chunk, a check for answers): one `step` message per broadcast and step sequence, published once however
 * many workers sweep. The actor ignores a step whose sequence is no longer the broadcast's.
 */
export const publishDueSteps = (deps: SweepDeps, now: Date, limit = 500): Promise<number> =>
  publishDue(deps, (tx) => tx<Array<Due>>`
      WITH due AS (
        SELECT id FROM broadcasts
        WHERE namespace = ${deps.namespace} AND next_step_at <= ${now} AND step_published < step_seq
        ORDER BY next_step_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
      UPDATE broadcasts b SET step_published = b.step_seq FROM due WHERE b.id = due.id
      RETURNING b.id::text AS id, b.tenant_id::text AS tenant_id, b.sandbox, b.step_seq`,
  (d) => told(deps, BroadcastProtocol, "step", d, { broadcast_id: d.id, seq: d.step_seq }, `broadcast-step:${d.id}:${d.step_seq}`, now.getTime()))

export interface BroadcastSweepShape {
  /** Publishes the steps due at `now` (the sweep's schedule calls it with the clock; tests may call it directly). */
  readonly publishDue: (now: Date) => Promise<number>
}

/** The broadcasts' timer: every GEP_BROADCAST_SWEEP_MS (default 500 ms) on the Clock, in every worker. */
export class BroadcastSweep extends Context.Service<BroadcastSweep, BroadcastSweepShape>()("app/broadcast/BroadcastSweep") {
  static readonly layer = Layer.effect(BroadcastSweep, Effect.gen(function*() {
    const app = yield* AppConfig
    const every = yield* EffectConfig.Number("GEP_BROADCAST_SWEEP_MS").pipe(EffectConfig.withDefault(500))
    const { sql } = yield* Database
    const publish = yield* messagePublisher
    const deps = { sql, namespace: app.namespace, partitions: app.partitions, publish }
    const publishDue = (now: Date) => publishDueSteps(deps, now)
    yield* Effect.forkScoped(periodic({ name: "broadcast sweep", span: "BroadcastSweep.publishDue", every, run: publishDue }))
    return BroadcastSweep.of({ publishDue })
  }))
}
