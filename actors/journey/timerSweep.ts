import { told } from "../../streams/tell.ts"
import { publishDue, type SweepDeps } from "../runtime/dueSweep.ts"
import { JourneyProtocol } from "./protocol.ts"

export type { SweepDeps }

interface Due {
  readonly id: string
  readonly tenant_id: string
  readonly sandbox: boolean
  readonly contact_id: string
  readonly wake_seq: number
}

/**
 * Wakes the runs whose wait is over: each due wait (not yet woken) becomes one `wake` message for the contact's
 * journey actor, written to the outbox in the transaction that marks it published, so a wait is woken once however
 * many workers sweep (rows one sweep holds are skipped by the others). Only the runs of this deployment's namespace
 * are woken: a wake goes to this deployment's streams, so another's run would be carried on by the wrong workers. The actor ignores a wake whose sequence is
 * no longer the run's (stopped, or waiting again), which is what makes a stop during a wait take effect at once.
 */
export const wakeDueRuns = (deps: SweepDeps, now: Date, limit = 1_000): Promise<number> =>
  publishDue(deps, (tx) => tx<Array<Due>>`
      WITH due AS (
        SELECT id FROM journey_runs
        WHERE state = 'waiting' AND wake_published < wake_seq AND wake_at <= ${now}
          AND (namespace = ${deps.namespace} OR namespace IS NULL)
        ORDER BY wake_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
      UPDATE journey_runs r SET wake_published = r.wake_seq FROM due WHERE r.id = due.id
      RETURNING r.id, r.tenant_id, r.sandbox, r.contact_id, r.wake_seq`,
  (d) => told(deps, JourneyProtocol, "wake", d, { contact_id: d.contact_id, run_id: d.id, wake_seq: d.wake_seq }, `wake:${d.id}:${d.wake_seq}`, now.getTime()))
