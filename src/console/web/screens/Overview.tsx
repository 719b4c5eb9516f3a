import { useMemo } from "preact/hooks"
import { api, dataOf } from "../client.ts"
import type { Overview as OverviewData, OverviewDay } from "../types.ts"
import { Chart, type Series } from "../Chart.tsx"
import { FilterForm, type FilterField, useFilters } from "../filters.tsx"
import { useLoaded } from "../paging.ts"
import { ErrorNote, Screen } from "../ui.tsx"

const BASE_FILTERS: ReadonlyArray<FilterField> = [{ name: "from", label: "From", type: "date" }, { name: "to", label: "To", type: "date" }]
const COLORS = ["#1f5fa8", "#b3541e", "#2e7d32", "#6a1b9a", "#c62828", "#00695c"]

/** Every day from `from` to `to` (YYYY-MM-DD, UTC), so a day without activity is a zero, not a gap. */
export const daysBetween = (from: string, to: string): Array<string> => {
  const dates: Array<string> = []
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`) && dates.length <= 92; t += 86_400_000) {
    dates.push(new Date(t).toISOString().slice(0, 10))
  }
  return dates
}

/** The days summed over hotels (the answer has a row per day and hotel with activity). */
const perDay = (data: OverviewData) => {
  const { days } = data
  const dates = daysBetween(data.from, data.to)
  const sum = (f: (d: OverviewDay) => number) => dates.map((date) => days.filter((d) => d.date === date).reduce((n, d) => n + f(d), 0))
  return { dates, sum }
}

const charts = (data: OverviewData) => {
  const { dates, sum } = perDay(data)
  const series = (list: ReadonlyArray<[string, (d: OverviewDay) => number]>): ReadonlyArray<Series> =>
    list.map(([label, f], i) => ({ label, values: sum(f), color: COLORS[i % COLORS.length]! }))
  const succeeded = sum((d) => d.webhooks.succeeded)
  const failed = sum((d) => d.webhooks.failed)
  return {
    dates,
    activity: series([["Reservations received", (d) => d.reservations_received], ["Contacts created", (d) => d.contacts_created], ["Journey entries", (d) => d.journey_entries]]),
    email: series([["Sent", (d) => d.messages.email.sent], ["Delivered", (d) => d.messages.email.delivered], ["Read", (d) => d.messages.email.read], ["Failed", (d) => d.messages.email.failed], ["Skipped", (d) => d.messages.email.skipped]]),
    whatsapp: series([["Sent", (d) => d.messages.whatsapp.sent], ["Delivered", (d) => d.messages.whatsapp.delivered], ["Read", (d) => d.messages.whatsapp.read], ["Failed", (d) => d.messages.whatsapp.failed], ["Skipped", (d) => d.messages.whatsapp.skipped]]),
    webhooks: [{ label: "Success rate %", color: COLORS[2]!, values: succeeded.map((s, i) => s + failed[i]! === 0 ? null : Math.round(1000 * s / (s + failed[i]!)) / 10) }]
  }
}

export const Overview = () => {
  // The hotels to choose from (the first hundred: a group with more filters by id in the URL).
  const hotels = useLoaded("hotels", () => dataOf(api.GET("/api/v1/hotels", { params: { query: { limit: "100" } } })).then((d) => d.hotels)).value ?? []
  const fields = useMemo(() => [...BASE_FILTERS, { name: "hotel_id", label: "Hotel", options: hotels.map((h) => h.hotel_id) }], [hotels])
  const { values, apply } = useFilters(fields)
  const { value: data, error } = useLoaded<OverviewData>(JSON.stringify(values), () => dataOf(api.GET("/api/v1/overview", { params: { query: values } })))
  const shown = useMemo(() => data && charts(data), [data])
  const hotelName = (id: string | null) => id === null ? "no hotel" : hotels.find((h) => h.hotel_id === id)?.name ?? id
  return (
    <Screen title="Overview" busy={data === null && error === null}>
      <FilterForm fields={fields} values={values} apply={apply} label="Overview period and hotel" />
      <ErrorNote message={error} />
      {data && <p>From {data.from} to {data.to}{values.hotel_id ? `, ${hotelName(values.hotel_id)}` : ", every hotel"}.</p>}
      <div class="charts">
        {shown ? <>
          <Chart title="Reservations, contacts and journey entries" dates={shown.dates} series={shown.activity} />
          <Chart title="Email messages by outcome" dates={shown.dates} series={shown.email} />
          <Chart title="WhatsApp messages by outcome" dates={shown.dates} series={shown.whatsapp} />
          <Chart title="Webhook success rate" dates={shown.dates} series={shown.webhooks} />
        </> : [0, 1, 2, 3].map((i) => <div key={i} class="chart-figure reserved" />)}
      </div>
      {data && <details class="per-hotel">
        <summary>Per day and hotel</summary>
        <table>
          <thead><tr><th scope="col">Day</th><th scope="col">Hotel</th><th scope="col" class="num">Reservations</th><th scope="col" class="num">Contacts</th><th scope="col" class="num">Journey entries</th>
            <th scope="col" class="num">Emails sent</th><th scope="col" class="num">WhatsApp sent</th><th scope="col" class="num">Webhooks ok</th><th scope="col" class="num">Webhooks failed</th></tr></thead>
          <tbody>{data.days.map((d) => <tr key={`${d.date}:${d.hotel_id}`}>
            <th scope="row">{d.date}</th><td>{hotelName(d.hotel_id)}</td><td class="num">{d.reservations_received}</td><td class="num">{d.contacts_created}</td>
            <td class="num">{d.journey_entries}</td><td class="num">{d.messages.email.sent}</td><td class="num">{d.messages.whatsapp.sent}</td>
            <td class="num">{d.webhooks.succeeded}</td><td class="num">{d.webhooks.failed}</td>
          </tr>)}</tbody>
        </table>
      </details>}
    </Screen>
  )
}
