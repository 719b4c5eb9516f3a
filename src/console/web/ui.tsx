import type { ComponentChildren } from "preact"
import type { Paged } from "./paging.ts"

// Small pieces every screen uses: dates, states, a list's frame with its pager.

export const when = (iso: string | null | undefined) => iso ? new Date(iso).toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" }) + " UTC" : "—"

export const Badge = ({ value }: { value: string | null | undefined }) =>
  <span class={`badge badge-${(value ?? "none").replace(/[^a-z0-9_-]/gi, "")}`}>{value ?? "—"}</span>

export const ErrorNote = ({ message }: { message: string | null }) =>
  message === null ? null : <p class="error" role="alert">{message}</p>

/** The page's heading; the whole screen is announced as busy while its first answer is awaited. */
export const Screen = ({ title, children, busy = false }: { title: string; children: ComponentChildren; busy?: boolean }) =>
  <section class="screen" aria-busy={busy} aria-labelledby="screen-title">
    <h1 id="screen-title">{title}</h1>
    {children}
  </section>

/** A list's states (loading, failed, empty) and its pager around the rows the caller renders. */
export const PagedList = <T,>({ paged, label, empty, children }: {
  paged: Paged<T>; label: string; empty: string; children: (items: ReadonlyArray<T>) => ComponentChildren
}) =>
  <div class="paged" aria-busy={paged.status === "loading"}>
    <ErrorNote message={paged.error} />
    {paged.status === "loading" && paged.items.length === 0 ? <p class="placeholder">Loading…</p>
      : paged.status === "ready" && paged.items.length === 0 ? <p class="placeholder">{empty}</p>
      : children(paged.items)}
    <nav class="pager" aria-label={`${label} pages`}>
      <button type="button" disabled={!paged.hasPrevious} onClick={paged.previous}>Previous page</button>
      <button type="button" disabled={!paged.hasNext} onClick={paged.next}>Next page</button>
    </nav>
  </div>

/** A count as the document types numbers (JSON Schema lets a number be "Infinity" or "NaN"; the API sends integers). */
export const num = (v: number | string): number => typeof v === "number" ? v : Number(v)

export const Json = ({ value }: { value: unknown }) => <pre class="json">{JSON.stringify(value, null, 2)}</pre>
