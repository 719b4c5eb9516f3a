import { useState } from "preact/hooks"
import type { paths } from "../api.d.ts"
import { api, dataOf } from "../client.ts"
import { usePaged } from "../paging.ts"
import { Badge, ErrorNote, PagedList, when } from "../ui.tsx"

type Item = paths["/api/v1/contacts/{contact_id}/timeline"]["get"]["responses"]["200"]["content"]["application/json"]["data"]["items"][number]

const runLink = (runId: string, text: string) => <a href={`/console/runs/${runId}`}>{text}</a>

/** The status chain of a message, oldest first: queued → sent → delivered, each with its time. */
export const StatusChain = ({ steps }: { steps: ReadonlyArray<{ status: string; at: string; error_code?: string | null }> }) =>
  <ol class="chain" aria-label="Status chain">
    {steps.map((s, i) => <li key={i}><Badge value={s.status} /> <time dateTime={s.at}>{when(s.at)}</time>{s.error_code ? ` (${s.error_code})` : ""}</li>)}
  </ol>

const Transcript = ({ callRecordId }: { callRecordId: string }) => {
  const [turns, setTurns] = useState<ReadonlyArray<{ speaker: string; text: string }> | null>(null)
  const [error, setError] = useState<string | null>(null)
  const open = () => dataOf(api.GET("/api/calls/{call_record_id}", { params: { path: { call_record_id: callRecordId } } }))
    .then((call) => setTurns(call.transcript ?? []), (e: Error) => setError(e.message))
  if (turns === null) return <><button type="button" onClick={open}>Show transcript</button><ErrorNote message={error} /></>
  return turns.length === 0 ? <p>No transcript.</p> : <ol class="transcript">{turns.map((t, i) => <li key={i}><b>{t.speaker}:</b> {t.text}</li>)}</ol>
}

const Details = ({ item }: { item: Item }) => {
  switch (item.kind) {
    case "message":
      return <>
        <p>{item.data.channel} {item.data.template_name ?? item.data.subject ?? ""} <Badge value={item.data.status} />
          {item.data.skip_reason && <> skipped: {item.data.skip_reason}</>}
          {item.data.error_code && <> error {item.data.error_code}</>}
          {item.data.journey_run_id && <> · {runLink(item.data.journey_run_id, "journey run")}</>}</p>
        <StatusChain steps={item.data.statuses} />
      </>
    case "journey_entered":
      return <p>{runLink(item.data.run_id, `Run of ${item.data.journey_name}`)} (version {item.data.version})</p>
    case "journey_step":
      return <p>{runLink(item.data.run_id, item.data.journey_name)}: step {item.data.step_id} ({item.data.step_type}) <Badge value={item.data.outcome} />{item.data.reason && ` ${item.data.reason}`}</p>
    case "journey_ended":
      return <p>{runLink(item.data.run_id, item.data.journey_name)} <Badge value={item.data.state} />{item.data.reason && ` ${item.data.reason}`}</p>
    case "reservation":
      return <p>{item.data.event_type} {item.data.external_reservation_id ?? ""} {item.data.check_in && `${item.data.check_in} → ${item.data.check_out}`} <Badge value={item.data.status} /></p>
    case "call":
      return <><p>{item.data.direction ?? ""} call via {item.data.provider}, {item.data.status}{item.data.duration_seconds !== null && `, ${item.data.duration_seconds} s`}</p><Transcript callRecordId={item.id} /></>
    case "loyalty_movement":
      return <p>{item.data.movement} {item.data.points} points ({item.data.status}), balance {item.data.balance_after}{item.data.reason && `: ${item.data.reason}`}</p>
    case "webhook":
      return <p>{item.data.event_type} to subscription {item.data.subscription_id} (event {item.data.event_id})</p>
    case "consent_change":
      return <p>{item.data.channel} {item.data.granted ? "granted" : "withdrawn"} by {item.data.source}</p>
    default:
      return null
  }
}

export const Timeline = ({ contactId }: { contactId: string }) => {
  const paged = usePaged(`timeline:${contactId}`, async (cursor) => {
    const data = await dataOf(api.GET("/api/v1/contacts/{contact_id}/timeline", {
      params: { path: { contact_id: contactId }, query: cursor ? { cursor } : {} }
    }))
    return { items: data.items, next_cursor: data.next_cursor }
  })
  return (
    <section aria-labelledby="timeline-title">
      <h2 id="timeline-title">Timeline</h2>
      <PagedList paged={paged} label="Timeline" empty="Nothing has happened to this contact yet.">
        {(items) =>
          <ol class="timeline" data-testid="contact-timeline">
            {items.map((item) =>
              <li key={`${item.kind}:${item.id}`} data-testid="timeline-item" data-kind={item.kind}>
                <div class="meta"><time dateTime={item.at}>{when(item.at)}</time> <span class="kind">{item.kind.replace("_", " ")}</span></div>
                <p class="summary">{item.summary}</p>
                <Details item={item} />
              </li>)}
          </ol>}
      </PagedList>
    </section>
  )
}
