import { useLocation } from "preact-iso"
import { useState } from "preact/hooks"

// A screen's filters live in its URL query (a filtered list is a link to share, and Back restores it).

export interface FilterField { readonly name: string; readonly label: string; readonly type?: "date" | "text"; readonly options?: ReadonlyArray<string> }

/** The query's filters, only those named, without the empty ones. */
export const useFilters = (fields: ReadonlyArray<FilterField>, keep: Record<string, string> = {}) => {
  const { query, path, route } = useLocation()
  const values: Record<string, string> = {}
  for (const f of fields) if (query[f.name]) values[f.name] = query[f.name]!
  const apply = (next: Record<string, string>) => {
    const search = new URLSearchParams({ ...keep, ...Object.fromEntries(Object.entries(next).filter(([, v]) => v !== "")) })
    route(`${path}?${search}`)
  }
  return { values, apply }
}

export const FilterForm = ({ fields, values, apply, label }: {
  fields: ReadonlyArray<FilterField>; values: Record<string, string>; apply: (v: Record<string, string>) => void; label: string
}) => {
  const [draft, setDraft] = useState(values)
  const set = (name: string, value: string) => setDraft({ ...draft, [name]: value })
  return (
    <form class="filters" aria-label={label} onSubmit={(e) => { e.preventDefault(); apply(draft) }}>
      {fields.map((f) => <div key={f.name} class="field">
        <label for={`filter-${f.name}`}>{f.label}</label>
        {f.options
          ? <select id={`filter-${f.name}`} value={draft[f.name] ?? ""} onChange={(e) => set(f.name, e.currentTarget.value)}>
              <option value="">any</option>{f.options.map((o) => <option key={o} value={o}>{o}</option>)}
            </select>
          : <input id={`filter-${f.name}`} type={f.type ?? "text"} value={draft[f.name] ?? ""} onInput={(e) => set(f.name, e.currentTarget.value)} />}
      </div>)}
      <button type="submit">Filter</button>
    </form>
  )
}
