import type { PrivacyStore } from "../store.ts"
import { counted, INTERNAL, inSteps, tagged } from "./rows.ts"

/** A contact's journey runs (the trigger event frozen in each, its timers) and what each step did. */
export const journeysStore: PrivacyStore = {
  store: "journeys",
  action: "deleted",
  tables: ["journey_run_steps", "journey_runs"],
  holds: "journey runs of the contact (the starting event with its payload, timers, exit reasons) and their step log (with the merge-tag values each message was rendered with)",
  retention: "kept (no expiry): removed by an erasure",
  erase: (tx, subject, limit) => {
    const { tenant_id: t, sandbox: s } = subject.scope
    const ids = subject.contactIds as Array<string>
    return inSteps(limit, [
      (b) => counted(tx`DELETE FROM journey_run_steps WHERE (run_id, seq) IN (
        SELECT st.run_id, st.seq FROM journey_runs r JOIN journey_run_steps st ON st.run_id = r.id
        WHERE r.tenant_id = ${t} AND r.sandbox = ${s} AND r.contact_id = ANY(${ids}::uuid[]) LIMIT ${b})`),
      (b) => counted(tx`DELETE FROM journey_runs WHERE id IN (
        SELECT id FROM journey_runs WHERE tenant_id = ${t} AND sandbox = ${s} AND contact_id = ANY(${ids}::uuid[]) LIMIT ${b})`)
    ])
  },
  export: async (tx, subject) => tagged("journey_runs", await tx`
    SELECT (to_jsonb(r) - ${[...INTERNAL, "wake_seq", "wake_published", "steps_taken", "trigger"]}::text[]) || jsonb_build_object(
        -- The starting event as the run froze it, without the other guests a booking event lists.
        'trigger', r.trigger #- '{payload,contact_ids}',
        'journey_name', (SELECT d.name FROM journey_definitions d WHERE d.id = r.journey_id),
        'steps', (SELECT coalesce(jsonb_agg(to_jsonb(st) - ${[...INTERNAL, "run_id"]}::text[] ORDER BY st.seq), '[]'::jsonb)
          FROM journey_run_steps st WHERE st.run_id = r.id)) AS row
    FROM journey_runs r
    WHERE r.tenant_id = ${subject.scope.tenant_id} AND r.sandbox = ${subject.scope.sandbox}
      AND r.contact_id = ANY(${subject.contactIds as Array<string>}::uuid[])
    ORDER BY r.started_at, r.id`)
}

/** A broadcast's recipient rows of the contact (its counts are read from these rows and its messages). */
export const broadcastRecipientsStore: PrivacyStore = {
  store: "broadcast_recipients",
  action: "deleted",
  tables: ["broadcast_recipients"],
  holds: "the contact's place in broadcast audiences (status, skip reason, time zone)",
  retention: "kept with the broadcast (no expiry): removed by an erasure",
  erase: (tx, subject, limit) => counted(tx`DELETE FROM broadcast_recipients WHERE (broadcast_id, contact_id) IN (
    SELECT broadcast_id, contact_id FROM broadcast_recipients
    WHERE tenant_id = ${subject.scope.tenant_id} AND sandbox = ${subject.scope.sandbox}
      AND contact_id = ANY(${subject.contactIds as Array<string>}::uuid[]) LIMIT ${limit})`),
  export: async (tx, subject) => tagged("broadcast_recipients", await tx`
    SELECT (to_jsonb(x) - ${INTERNAL}::text[]) || jsonb_build_object('broadcast', b.name) AS row
    FROM broadcast_recipients x JOIN broadcasts b ON b.id = x.broadcast_id
    WHERE x.tenant_id = ${subject.scope.tenant_id} AND x.sandbox = ${subject.scope.sandbox}
      AND x.contact_id = ANY(${subject.contactIds as Array<string>}::uuid[])
    ORDER BY x.created_at`)
}
