import { useLocation } from "preact-iso"
import { useState } from "preact/hooks"
import { api, dataOf } from "../client.ts"
import { usePaged } from "../paging.ts"
import { PagedList, Screen, when } from "../ui.tsx"

/**
 * What the search box holds decides the filter: an address (with @) is an email, digits with a country code a phone.
 * The API has no search by name yet: a name is refused here with that said, rather than silently listing everyone.
 */
export const searchQuery = (text: string): { email: string } | { phone: string } | null => {
  const t = text.trim()
  if (t.includes("@")) return { email: t }
  if (/^\+?[\d\s().-]{6,}$/.test(t)) return { phone: t }
  return null
}

export const Contacts = () => {
  const { query, route } = useLocation()
  const [text, setText] = useState(query.q ?? "")
  const q = query.q ?? ""
  const filter = q === "" ? {} : searchQuery(q)
  const paged = usePaged(`contacts:${q}`, async (cursor) => {
    if (filter === null) throw new Error("Search by email address or by phone number with its country code (the API has no search by name yet).")
    const data = await dataOf(api.GET("/api/v1/contacts", { params: { query: { ...filter, ...(cursor ? { cursor } : {}) } } }))
    return { items: data.contacts, next_cursor: data.next_cursor }
  })
  const submit = (e: Event) => { e.preventDefault(); route(`/console/contacts?q=${encodeURIComponent(text.trim())}`) }
  return (
    <Screen title="Contacts">
      <form class="filters" role="search" onSubmit={submit}>
        <label for="contact-search">Email or phone</label>
        <input id="contact-search" data-testid="contact-search" type="search" value={text} placeholder="ana@example.com or +34 600 111 222"
          onInput={(e) => setText(e.currentTarget.value)} />
        <button type="submit">Search</button>
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
