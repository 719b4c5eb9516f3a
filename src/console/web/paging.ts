import { useEffect, useState } from "preact/hooks"

// Every list of the API is paged by an opaque next_cursor: the console walks forward with it and back through the
// cursors it already used.

export interface Page<T> { readonly items: ReadonlyArray<T>; readonly next_cursor: string | null }

export interface Paged<T> {
  readonly status: "loading" | "ready" | "error"
  readonly items: ReadonlyArray<T>
  readonly error: string | null
  readonly hasNext: boolean
  readonly hasPrevious: boolean
  readonly next: () => void
  readonly previous: () => void
  readonly reload: () => void
}

/**
 * One page of `load` at a time. `key` names the query (the filters): a new key starts again at the first page.
 * With `pollMs`, the first page is reloaded that often (a live log) while it is the page shown.
 */
export const usePaged = <T>(key: string, load: (cursor: string | undefined) => Promise<Page<T>>, pollMs?: number): Paged<T> => {
  const [cursors, setCursors] = useState<{ key: string; stack: Array<string | undefined> }>({ key, stack: [undefined] })
  const stack = cursors.key === key ? cursors.stack : [undefined]
  const cursor = stack[stack.length - 1]
  const [state, setState] = useState<{ status: Paged<T>["status"]; items: ReadonlyArray<T>; next: string | null; error: string | null }>(
    { status: "loading", items: [], next: null, error: null })
  const [tick, setTick] = useState(0)
  useEffect(() => {
    let live = true
    setState((s) => ({ ...s, status: s.items.length > 0 && tick > 0 ? s.status : "loading" }))
    load(cursor).then(
      (page) => { if (live) setState({ status: "ready", items: page.items, next: page.next_cursor, error: null }) },
      (e: unknown) => { if (live) setState({ status: "error", items: [], next: null, error: e instanceof Error ? e.message : String(e) }) }
    )
    return () => { live = false }
  }, [key, cursor, tick])
  useEffect(() => {
    if (pollMs === undefined || cursor !== undefined) return
    const timer = setInterval(() => setTick((t) => t + 1), pollMs)
    return () => clearInterval(timer)
  }, [key, cursor, pollMs])
  return {
    ...state,
    hasNext: state.next !== null,
    hasPrevious: stack.length > 1,
    next: () => { if (state.next !== null) setCursors({ key, stack: [...stack, state.next] }) },
    previous: () => setCursors({ key, stack: stack.slice(0, -1) }),
    reload: () => setTick((t) => t + 1)
  }
}

export interface Loaded<T> {
  readonly value: T | null
  readonly error: string | null
  /** Reads it again (after an action changed it). */
  readonly reload: () => void
  /** Runs an action, then reads again; a refusal shows as the error. */
  readonly act: (action: () => Promise<unknown>) => void
}

/** One answer (a profile, a run, a broadcast) read when `key` changes, with what went wrong in words. */
export const useLoaded = <T>(key: string, load: () => Promise<T>): Loaded<T> => {
  const [state, setState] = useState<{ key: string; value: T | null; error: string | null }>({ key, value: null, error: null })
  const [tick, setTick] = useState(0)
  useEffect(() => {
    let live = true
    load().then(
      (value) => { if (live) setState({ key, value, error: null }) },
      (e: unknown) => { if (live) setState({ key, value: null, error: e instanceof Error ? e.message : String(e) }) }
    )
    return () => { live = false }
  }, [key, tick])
  const current = state.key === key ? state : { value: null, error: null }
  return {
    value: current.value,
    error: current.error,
    reload: () => setTick((t) => t + 1),
    act: (action) => {
      action().then(() => setTick((t) => t + 1), (e: unknown) => setState((s) => ({ ...s, error: e instanceof Error ? e.message : String(e) })))
    }
  }
}
