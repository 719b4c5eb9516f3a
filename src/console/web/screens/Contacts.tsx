import { useLocation } from "preact-iso"
import { useState } from "preact/hooks"
import { api, dataOf } from "../client.ts"
import { usePaged } from "../paging.ts"
import { searchQuery, SEARCH_HINT } from "../search.ts"
import { PagedList, Screen, when } from "../ui.tsx"

export const Contacts = () => {
  const { query, route } = useLocation()
  const [text, setText] = useState(query.q ?? "")
  const q = query.q ?? ""
  const filter = searchQuery(q)
  const paged = usePaged(`contacts:${q}`, async (cursor) => {
    const data = await dataOf(api.GET("/api/v1/contacts", { params: { query: { ...filter, ...(cursor ? { cursor } : {}) } } }))
    return { items: data.contacts, next_cursor: data.next_cursor }
  })
  const submit = (e: Event) => { e.preventDefault(); route(`/console/contacts?q=${encodeURIComponent(text.trim())}`) }
  return (
    <Screen title="Contacts">
      <form class="filters" role="search" onSubmit={submit}>
        <label for="contact-search">Name, email or phone</label>
        <input id="contact-search" data-testid="contact-search" type="search" value={text} aria-describedby="contact-search-hint"
          placeholder="Ana García, ana@example.com or +34 600 111 222" onInput={(e) => setText(e.currentTarget.value)} />
        <button type="submit">Search</button>
        <small id="contact-search-hint">{SEARCH_HINT}</small>
      </form>
      <PagedList paged={paged} label="Contacts" empty="No contact matches.">
        {(contacts) =>
          <table>
            <caption class="visually-hidden">Contacts found</caption>
            <thead><tr><th scope="col">Name</th><th scope="col">Email</th><th scope="col">Phone</th><th scope="col">Updated</th></tr></thead>
            <tbody>
              {contacts.map((c) =>
                <tr key={c.contact_id}>
                  <td><a href={`/console/contacts/${c.contact_id}`}>{[c.first_name, c.last_name].filter(Boolean).join(" ") || "(no name)"}</a></td>
                  <td>{c.email ?? "—"}</td><td>{c.phone ?? "—"}</td><td>{when(c.updated_at)}</td>
                </tr>)}
            </tbody>
          </table>}
      </PagedList>
    </Screen>
  )
}
