import { useRoute } from "preact-iso"
import type { paths } from "../api.d.ts"
import { api, dataOf } from "../client.ts"
import { useLoaded, usePaged } from "../paging.ts"
import { Badge, ErrorNote, PagedList, Screen, when } from "../ui.tsx"
import { Timeline } from "./Timeline.tsx"

type Profile = paths["/api/v1/contacts/{contact_id}"]["get"]["responses"]["200"]["content"]["application/json"]["data"]

const Consent = ({ profile }: { profile: Profile }) =>
  <section aria-labelledby="consent-title">
    <h2 id="consent-title">Consent</h2>
    <table>
      <thead><tr><th scope="col">Channel</th><th scope="col">Marketing</th><th scope="col">Opted out</th><th scope="col">Suppressed</th><th scope="col">Evidence</th></tr></thead>
      <tbody>
        {(["email", "whatsapp"] as const).map((channel) => {
          const c = profile.consent[channel]
          const evidence = profile.consent.history.filter((h) => h.channel === channel)
          return <tr key={channel}>
            <th scope="row">{channel}</th>
            <td>{c.granted === null ? "never stated" : c.granted ? "granted" : "withdrawn"}</td>
            <td>{when(c.opted_out_at)}</td>
            <td>{c.suppressed ? `${c.suppressed.reason} since ${when(c.suppressed.since)}` : "no"}</td>
            <td>{evidence.length === 0 ? "—" : <ul class="plain">{evidence.slice(0, 5).map((h, i) =>
              <li key={i}>{h.granted ? "granted" : "withdrawn"} by {h.source}, {when(h.captured_at ?? h.recorded_at)}{h.text ? `: “${h.text}”` : ""}{h.ip ? ` (IP ${h.ip})` : ""}</li>)}</ul>}</td>
          </tr>
        })}
      </tbody>
    </table>
  </section>

const Reservations = ({ contactId }: { contactId: string }) => {
  const paged = usePaged(`reservations:${contactId}`, async (cursor) => {
    const data = await dataOf(api.GET("/api/v1/reservations", { params: { query: { contact_id: contactId, ...(cursor ? { cursor } : {}) } } }))
    return { items: data.reservations, next_cursor: data.next_cursor }
  })
  return <section aria-labelledby="reservations-title">
    <h2 id="reservations-title">Reservations</h2>
    <PagedList paged={paged} label="Reservations" empty="No reservation.">
      {(items) => <table>
        <thead><tr><th scope="col">Reservation</th><th scope="col">Stay</th><th scope="col">Status</th><th scope="col">Stage</th></tr></thead>
        <tbody>{items.map((r) => <tr key={r.reservation_id}>
          <td>{r.external_reservation_id}</td><td>{r.check_in} → {r.check_out} ({r.nights} nights)</td>
          <td><Badge value={r.status} /></td><td><Badge value={r.guest_stage} /></td>
        </tr>)}</tbody>
      </table>}
    </PagedList>
  </section>
}

export const Contact = () => {
  const { params } = useRoute()
  const id = params.id ?? ""
  const { value: profile, error } = useLoaded<Profile>(id, () => dataOf(api.GET("/api/v1/contacts/{contact_id}", { params: { path: { contact_id: id } } })))
  const name = profile ? [profile.first_name, profile.last_name].filter(Boolean).join(" ") || "(no name)" : "Contact"
  return (
    <Screen title={name} busy={profile === null && error === null}>
      <ErrorNote message={error} />
      <div class="columns">
        <section aria-labelledby="profile-title" class="card profile">
          <h2 id="profile-title">Profile</h2>
          {profile === null ? <p class="placeholder">Loading…</p> : <dl>
            <dt>Email</dt><dd>{profile.email ?? "—"}</dd>
            <dt>Phone</dt><dd>{profile.phone ?? "—"}</dd>
            <dt>Language</dt><dd>{profile.language}</dd>
            <dt>Stage</dt><dd><Badge value={profile.guest_stage} /></dd>
            <dt>Tags</dt><dd>{profile.tags.join(", ") || "—"}</dd>
            <dt>Hotels</dt><dd>{profile.hotels.map((h) => h.name).join(", ") || "—"}</dd>
            <dt>Created</dt><dd>{when(profile.created_at)}</dd>
          </dl>}
        </section>
        {profile && <Consent profile={profile} />}
      </div>
      <Reservations contactId={id} />
      <Timeline contactId={id} />
    </Screen>
  )
}
