import { useRoute } from "preact-iso"
import type { paths } from "../api.d.ts"
import { api, dataOf } from "../client.ts"
import { useLoaded } from "../paging.ts"
import { mayAct, useSession } from "../session.ts"
import { Badge, ErrorNote, Json, Screen, when } from "../ui.tsx"

type RunView = paths["/api/v1/journey-runs/{run_id}"]["get"]["responses"]["200"]["content"]["application/json"]["data"]

/**
 * The run inspector: what started the run (the event's payload as the run froze it), each step with its time and
 * outcome and, for a message, the merge-tag values it was rendered with, the wait it is in, why it ended.
 */
export const Run = () => {
  const { params } = useRoute()
  const runId = params.run_id ?? ""
  const role = useSession()?.role
  const loaded = useLoaded<RunView>(runId, () => dataOf(api.GET("/api/v1/journey-runs/{run_id}", { params: { path: { run_id: runId } } })))
  const { value: run, error } = loaded
  const stop = () => loaded.act(() => dataOf(api.POST("/api/v1/journey-runs/{run_id}/stop", { params: { path: { run_id: runId } } })))
  const ended = run !== null && ["completed", "stopped", "failed"].includes(run.state)
  return (
    <Screen title="Journey run" busy={run === null && error === null}>
      <ErrorNote message={error} />
      {run === null ? <p class="placeholder">Loading…</p> : <>
        <dl class="facts">
          <dt>Journey</dt><dd><a href={`/console/journeys/${run.journey_id}`}>{run.journey_id}</a> (version {run.version})</dd>
          <dt>Contact</dt><dd><a href={`/console/contacts/${run.contact_id}`}>{run.contact_id}</a></dd>
          <dt>State</dt><dd><Badge value={run.state} />{run.exit_reason && run.exit_reason !== run.state && ` ${run.exit_reason}`}{run.error && ` ${run.error.code}: ${run.error.message}`}</dd>
          <dt>Started</dt><dd>{when(run.started_at)}</dd>
          <dt>Next wake</dt><dd>{when(run.wake_at)}</dd>
          <dt>Ended</dt><dd>{when(run.ended_at)}</dd>
        </dl>
        {/* A viewer sees Stop disabled, with who may use it, as on a broadcast (the API refuses a viewer's call anyway). */}
        {!ended && <button type="button" onClick={stop} disabled={!mayAct(role)}
          title={mayAct(role) ? undefined : "Operators and admins stop journey runs"}>Stop this run</button>}
        <h2>Trigger</h2>
        <Json value={{ ...run.trigger, payload: undefined, scope: run.scope, hotel_id: run.hotel_id, reservation_id: run.reservation_id }} />
        <h3>Payload</h3>
        <Json value={run.trigger.payload} />
        <h2>Steps</h2>
        <ol class="steps">
          {run.steps.map((s, i) => <li key={i} data-testid="run-step">
            <time dateTime={s.at}>{when(s.at)}</time> <b>{s.step_id}</b> ({s.type}) <Badge value={s.outcome} />
            {s.reason && <> {s.reason}</>}
            {s.message_status && <> · message <Badge value={s.message_status} /></>}
            {s.merge_values && Object.keys(s.merge_values).length > 0 && <dl class="facts merge-values" aria-label={`Merge values of ${s.step_id}`}>
              {Object.entries(s.merge_values).map(([tag, value]) => <div key={tag}><dt><code>{tag}</code></dt><dd>{value ?? "(none)"}</dd></div>)}
            </dl>}
          </li>)}
          {run.state === "waiting" && <li class="waiting">waiting until {when(run.wake_at)}</li>}
        </ol>
      </>}
    </Screen>
  )
}
