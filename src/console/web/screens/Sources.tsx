import { useRoute } from "preact-iso"
import { api, dataOf } from "../client.ts"
import { usePaged } from "../paging.ts"
import { Badge, PagedList, Screen, when } from "../ui.tsx"

/** How often the first page of a source's delivery log is read again while it is on screen. */
const LIVE_MS = 5_000

export const Sources = () => {
  const paged = usePaged("sources", async () => {
    const data = await dataOf(api.GET("/api/v1/website-sources"))
    return { items: data.sources, next_cursor: data.next_cursor }
  })
  return (
    <Screen title="Website sources">
      <PagedList paged={paged} label="Website sources" empty="No website source yet.">
        {(sources) => <table>
          <thead><tr><th scope="col">Source</th><th scope="col">Enabled</th><th scope="col">Origins</th><th scope="col">Updated</th></tr></thead>
          <tbody>{sources.map((s) => <tr key={s.source_id}>
            <td><a href={`/console/sources/${s.source_id}`}>{s.name}</a></td><td>{s.enabled ? "yes" : "no"}</td>
            <td>{s.allowed_origins.join(", ")}</td><td>{when(s.updated_at)}</td>
          </tr>)}</tbody>
        </table>}
      </PagedList>
    </Screen>
  )
}

export const Source = () => {
  const { params } = useRoute()
  const id = params.id ?? ""
  const paged = usePaged(`source-deliveries:${id}`, async (cursor) => {
    const data = await dataOf(api.GET("/api/v1/website-sources/{id}/deliveries", { params: { path: { id }, query: cursor ? { cursor } : {} } }))
    return { items: data.deliveries, next_cursor: data.next_cursor }
  }, LIVE_MS)
  return (
    <Screen title="Website source deliveries">
      <p>What arrived from this source, newest first; the first page refreshes every {LIVE_MS / 1000} seconds.</p>
      <PagedList paged={paged} label="Deliveries" empty="Nothing has arrived from this source yet.">
        {(deliveries) => <table aria-live="polite">
          <thead><tr><th scope="col">Received</th><th scope="col">Status</th><th scope="col">Origin</th><th scope="col" class="num">Accepted</th><th scope="col" class="num">Rejected</th><th scope="col">Issues</th></tr></thead>
          <tbody>{deliveries.map((d) => <tr key={d.delivery_id} data-testid="delivery-row">
            <td>{when(d.received_at)}{d.test && " (test)"}</td><td><Badge value={String(d.status)} />{d.error_code && ` ${d.error_code}`}</td>
            <td>{d.origin ?? "—"}</td><td class="num">{d.accepted}</td><td class="num">{d.rejected}</td>
            <td>{d.results ? <details><summary>{d.results.length} results</summary><pre class="json">{JSON.stringify(d.results, null, 2)}</pre></details> : "—"}</td>
          </tr>)}</tbody>
        </table>}
      </PagedList>
    </Screen>
  )
}
