import { useState } from "preact/hooks"
import { useRoute } from "preact-iso"
import type { paths } from "../api.d.ts"
import { api, dataOf } from "../client.ts"
import { FilterForm, type FilterField, useFilters } from "../filters.tsx"
import { useLoaded, usePaged } from "../paging.ts"
import { mayAct, useSession } from "../session.ts"
import { Badge, ErrorNote, num, PagedList, Screen, when } from "../ui.tsx"

type BroadcastView = paths["/api/v1/broadcasts/{id}"]["get"]["responses"]["200"]["content"]["application/json"]["data"]

type BroadcastAction = "pause" | "resume" | "cancel"
const DONE: Record<BroadcastAction, string> = { pause: "Paused", resume: "Resumed", cancel: "Cancelled" }

const OUTCOMES = ["pending", "queued", "sent", "delivered", "read", "failed", "skipped"] as const
const RECIPIENT_FILTERS: ReadonlyArray<FilterField> = [{ name: "status", label: "Status", options: OUTCOMES }]

/** Done: every targeted recipient past pending and queued. */
const Progress = ({ b }: { b: BroadcastView }) => {
  const done = num(b.counts.targeted) - num(b.counts.pending) - num(b.counts.queued)
  return <div class="progress">
    <label for={`progress-${b.broadcast_id}`}>{done} of {b.counts.targeted} done</label>
    <progress id={`progress-${b.broadcast_id}`} max={Math.max(num(b.counts.targeted), 1)} value={Math.max(done, 0)} />
  </div>
}

export const Broadcasts = () => {
  const paged = usePaged("broadcasts", async (cursor) => {
    const data = await dataOf(api.GET("/api/v1/broadcasts", { params: { query: cursor ? { cursor } : {} } }))
    return { items: data.broadcasts, next_cursor: data.next_cursor }
  })
  return (
    <Screen title="Broadcasts">
      <PagedList paged={paged} label="Broadcasts" empty="No broadcast yet.">
        {(broadcasts) => <table>
          <thead><tr><th scope="col">Broadcast</th><th scope="col">Channel</th><th scope="col">Status</th><th scope="col">Progress</th></tr></thead>
          <tbody>{broadcasts.map((b) => <tr key={b.broadcast_id}>
            <td><a href={`/console/broadcasts/${b.broadcast_id}`}>{b.name}</a></td><td>{b.channel}</td><td><Badge value={b.status} /></td>
            <td><Progress b={b} /></td>
          </tr>)}</tbody>
        </table>}
      </PagedList>
    </Screen>
  )
}

export const Broadcast = () => {
  const { params } = useRoute()
  const id = params.id ?? ""
  const role = useSession()?.role
  const loaded = useLoaded<BroadcastView>(id, () => dataOf(api.GET("/api/v1/broadcasts/{id}", { params: { path: { id } } })))
  const { value: b, error } = loaded
  // What the last action did, said where a screen reader hears it (the status badge changes with it).
  const [done, setDone] = useState<string | null>(null)
  const act = (action: BroadcastAction) => {
    setDone(null)
    loaded.act(() => dataOf(api.POST(`/api/v1/broadcasts/{id}/${action}`, { params: { path: { id } } })).then(() => setDone(DONE[action])))
  }
  // A viewer sees the actions disabled, with who may take them (the API refuses a viewer's call anyway).
  const allowed = mayAct(role)
  const button = (name: BroadcastAction, label: string) =>
    <button type="button" onClick={() => act(name)} disabled={!allowed}
      title={allowed ? undefined : "Operators and admins pause, resume and cancel broadcasts"}>{label}</button>
  const { values, apply } = useFilters(RECIPIENT_FILTERS)
  const recipients = usePaged(`recipients:${id}:${JSON.stringify(values)}`, async (cursor) => {
    const data = await dataOf(api.GET("/api/v1/broadcasts/{id}/recipients", {
      params: { path: { id }, query: { ...(values.status ? { status: values.status as typeof OUTCOMES[number] } : {}), ...(cursor ? { cursor } : {}) } }
    }))
    return { items: data.recipients, next_cursor: data.next_cursor }
  })
  return (
    <Screen title={b?.name ?? "Broadcast"} busy={b === null && error === null}>
      <ErrorNote message={error} />
      {b && <>
        <p><Badge value={b.status} />{b.status_reason && ` ${b.status_reason}`}{b.phase && ` (${b.phase})`} · started {when(b.started_at)}</p>
        <Progress b={b} />
        <table class="counts">
          <caption>Recipients by outcome</caption>
          <thead><tr>{OUTCOMES.map((o) => <th key={o} scope="col" class="num">{o}</th>)}</tr></thead>
          <tbody><tr>{OUTCOMES.map((o) => <td key={o} class="num">{b.counts[o]}</td>)}</tr></tbody>
        </table>
        <div class="actions">
          {b.status === "sending" && button("pause", "Pause")}
          {b.status === "paused" && button("resume", "Resume")}
          {["scheduled", "sending", "paused"].includes(b.status) && button("cancel", "Cancel")}
          {done !== null && <span role="status">{done}</span>}
        </div>
      </>}
      <h2>Recipients</h2>
      <FilterForm fields={RECIPIENT_FILTERS} values={values} apply={apply} label="Recipient filters" />
      <PagedList paged={recipients} label="Recipients" empty="No recipient matches.">
        {(items) => <table>
          <thead><tr><th scope="col">Contact</th><th scope="col">Status</th><th scope="col">Reason</th><th scope="col">Updated</th></tr></thead>
          <tbody>{items.map((r) => <tr key={r.contact_id}>
            <td><a href={`/console/contacts/${r.contact_id}`}>{r.contact_id}</a></td><td><Badge value={r.status} /></td>
            <td>{r.skip_reason ?? "—"}</td><td>{when(r.updated_at)}</td>
          </tr>)}</tbody>
        </table>}
      </PagedList>
    </Screen>
  )
}
