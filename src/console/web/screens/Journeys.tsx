import { useRoute } from "preact-iso"
import { api, dataOf } from "../client.ts"
import { FilterForm, type FilterField, useFilters } from "../filters.tsx"
import { usePaged } from "../paging.ts"
import { Badge, PagedList, Screen, when } from "../ui.tsx"

const RUN_FILTERS: ReadonlyArray<FilterField> = [
  { name: "state", label: "State", options: ["active", "waiting", "completed", "stopped", "failed"] }, { name: "contact_id", label: "Contact id" }
]

/** The journeys with their run counts (the counts come with the reads branch: until then they show as —). */
export const Journeys = () => {
  const paged = usePaged("journeys", async (cursor) => {
    const data = await dataOf(api.GET("/api/v1/journeys", { params: { query: cursor ? { cursor } : {} } }))
    return { items: data.journeys, next_cursor: data.next_cursor }
  })
  return (
    <Screen title="Journeys">
      <PagedList paged={paged} label="Journeys" empty="No journey yet.">
        {(journeys) => <table>
          <thead><tr><th scope="col">Journey</th><th scope="col">Status</th><th scope="col">Trigger</th>
            <th scope="col" class="num">Entered</th><th scope="col" class="num">Waiting</th><th scope="col" class="num">Completed</th><th scope="col" class="num">Stopped</th></tr></thead>
          <tbody>{journeys.map((j) => <tr key={j.journey_id}>
            <td><a href={`/console/journeys/${j.journey_id}`}>{j.name}</a></td><td><Badge value={j.status} /></td>
            <td>{j.trigger_event ?? j.trigger_type}</td>
            {(["entered", "waiting", "completed", "stopped"] as const).map((k) => <td key={k} class="num">{j.counts?.[k] ?? "—"}</td>)}
          </tr>)}</tbody>
        </table>}
      </PagedList>
    </Screen>
  )
}

export const Journey = () => {
  const { params } = useRoute()
  const id = params.id ?? ""
  const { values, apply } = useFilters(RUN_FILTERS)
  const paged = usePaged(`runs:${id}:${JSON.stringify(values)}`, async (cursor) => {
    const data = await dataOf(api.GET("/api/v1/journeys/{id}/runs", { params: { path: { id }, query: { ...values, ...(cursor ? { cursor } : {}) } } }))
    return { items: data.runs, next_cursor: data.next_cursor }
  })
  return (
    <Screen title="Journey runs">
      <FilterForm fields={RUN_FILTERS} values={values} apply={apply} label="Run filters" />
      <PagedList paged={paged} label="Runs" empty="No run matches.">
        {(runs) => <table>
          <thead><tr><th scope="col">Started</th><th scope="col">Contact</th><th scope="col">State</th><th scope="col">Next wake</th><th scope="col">Exit reason</th></tr></thead>
          <tbody>{runs.map((r) => <tr key={r.run_id}>
            <td><a href={`/console/runs/${r.run_id}`}>{when(r.started_at)}</a></td>
            <td><a href={`/console/contacts/${r.contact_id}`}>{r.contact_id}</a></td>
            <td><Badge value={r.state} /></td><td>{when(r.wake_at)}</td><td>{r.exit_reason ?? r.error?.message ?? "—"}</td>
          </tr>)}</tbody>
        </table>}
      </PagedList>
    </Screen>
  )
}
