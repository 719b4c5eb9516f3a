import { useLocation } from "preact-iso"
import { useState } from "preact/hooks"
import { api, dataOf } from "../client.ts"
import type { MessageDelivery, WebhookDelivery } from "../types.ts"
import { FilterForm, type FilterField, useFilters } from "../filters.tsx"
import { usePaged } from "../paging.ts"
import { mayAct, useSession } from "../session.ts"
import { Badge, PagedList, Screen, when } from "../ui.tsx"
import { StatusChain } from "./Timeline.tsx"

const MESSAGE_FILTERS: ReadonlyArray<FilterField> = [
  { name: "channel", label: "Channel", options: ["email", "whatsapp"] },
  { name: "status", label: "Status", options: ["queued", "sent", "delivered", "read", "failed", "skipped"] },
  { name: "template", label: "Template" }, { name: "journey_id", label: "Journey id" }, { name: "broadcast_id", label: "Broadcast id" },
  { name: "hotel_id", label: "Hotel id" }, { name: "from", label: "From", type: "date" }, { name: "to", label: "To", type: "date" }
]
const WEBHOOK_FILTERS: ReadonlyArray<FilterField> = [
  { name: "webhook_id", label: "Webhook id" }, { name: "event_type", label: "Event type" },
  { name: "status", label: "Outcome", options: ["succeeded", "failed", "gone", "skipped"] },
  { name: "from", label: "From", type: "date" }, { name: "to", label: "To", type: "date" }
]

/** What a row shows of a message delivery: its template's name, its run, its status chain. */
const deliveryView = (m: MessageDelivery) => ({
  id: m.message_id,
  template: m.template?.name ?? null,
  runId: m.run_id,
  steps: m.statuses.map((s) => ({ status: s.status, at: s.at }))
})

const Messages = () => {
  const { values, apply } = useFilters(MESSAGE_FILTERS, { view: "messages" })
  const paged = usePaged(`messages:${JSON.stringify(values)}`, async (cursor) => {
    const data = await dataOf(api.GET("/api/v1/messages", { params: { query: { ...values, ...(cursor ? { cursor } : {}) } } }))
    return { items: data.messages, next_cursor: data.next_cursor }
  })
  return <>
    <FilterForm fields={MESSAGE_FILTERS} values={values} apply={apply} label="Message filters" />
    <PagedList paged={paged} label="Messages" empty="No message matches.">
      {(messages) => <table>
        <thead><tr><th scope="col">Created</th><th scope="col">To</th><th scope="col">Channel</th><th scope="col">Template</th><th scope="col">Status</th><th scope="col">Error or reason</th></tr></thead>
        <tbody>{messages.map((m) => {
          const v = deliveryView(m)
          return <tr key={v.id} data-testid="delivery-row" data-outcome={m.status}>
            <td>{when(m.created_at)}</td>
            <td>{m.contact_id ? <a href={`/console/contacts/${m.contact_id}`}>{m.to ?? m.contact_id}</a> : m.to ?? "—"}</td>
            <td>{m.channel}</td><td>{v.template ?? "—"}</td>
            <td><StatusChain steps={v.steps} /></td>
            <td>{m.error ? <><code>{m.error.code}</code> {m.error.meaning ?? m.error.message}</> : m.skip_reason ?? "—"}
              {v.runId && <> · <a href={`/console/runs/${v.runId}`}>journey run</a></>}</td>
          </tr>
        })}</tbody>
      </table>}
    </PagedList>
  </>
}

const Resend = ({ delivery }: { delivery: WebhookDelivery }) => {
  const role = useSession()?.role
  const [state, setState] = useState<{ done: boolean; error: string | null }>({ done: false, error: null })
  const resend = () => dataOf(api.POST("/api/v1/webhooks/{id}/deliveries/{delivery_id}/resend", {
    params: { path: { id: delivery.webhook_id, delivery_id: delivery.id } }
  })).then(() => setState({ done: true, error: null }), (e: Error) => setState({ done: false, error: e.message }))
  if (state.done) return <span role="status">Resent</span>
  const allowed = mayAct(role)
  return <>
    <button type="button" data-testid="resend-button" onClick={resend} disabled={!allowed}
      title={allowed ? "Send this event to the webhook again" : "Operators and admins resend deliveries"}>Resend</button>
    {state.error && <span class="error" role="alert">{state.error}</span>}
  </>
}

const Webhooks = () => {
  const { values, apply } = useFilters(WEBHOOK_FILTERS, { view: "webhooks" })
  const paged = usePaged(`webhook-deliveries:${JSON.stringify(values)}`, async (cursor) => {
    const data = await dataOf(api.GET("/api/v1/webhook-deliveries", { params: { query: { ...values, ...(cursor ? { cursor } : {}) } } }))
    return { items: data.deliveries, next_cursor: data.next_cursor }
  })
  return <>
    <FilterForm fields={WEBHOOK_FILTERS} values={values} apply={apply} label="Webhook delivery filters" />
    <PagedList paged={paged} label="Webhook deliveries" empty="No webhook delivery matches.">
      {(deliveries) => <table>
        <thead><tr><th scope="col">Attempted</th><th scope="col">Event</th><th scope="col">Webhook</th><th scope="col">Outcome</th><th scope="col">Answer</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
        <tbody>{deliveries.map((d) => <tr key={d.id} data-testid="delivery-row" data-outcome={d.outcome}>
          <td>{when(d.attempted_at)}</td><td>{d.event_type} (attempt {d.attempt}, {d.trigger})</td><td class="url">{d.url}</td>
          <td><Badge value={d.outcome} /></td>
          <td>{d.response_status ?? "no answer"}{d.error && `: ${d.error}`}{d.next_attempt_at && ` · retry ${when(d.next_attempt_at)}`}</td>
          <td>{d.outcome === "failed" || d.outcome === "gone" ? <Resend delivery={d} /> : null}</td>
        </tr>)}</tbody>
      </table>}
    </PagedList>
  </>
}

export const Deliveries = () => {
  const { query } = useLocation()
  const view = query.view === "webhooks" ? "webhooks" : "messages"
  return (
    <Screen title="Deliveries">
      <nav class="tabs" aria-label="Delivery kinds">
        <a href="/console/deliveries?view=messages" aria-current={view === "messages" ? "page" : undefined}>Messages</a>
        <a href="/console/deliveries?view=webhooks" aria-current={view === "webhooks" ? "page" : undefined}>Webhook deliveries</a>
      </nav>
      {view === "messages" ? <Messages /> : <Webhooks />}
    </Screen>
  )
}
