/**
 * How a shown answer is compared with the real one: the shown fields as a deep subset. Object keys shown must match
 * (others may exist; a `"…": "…"` entry only says so); arrays compare element by element for the elements shown; the
 * string "…" matches any value; the string "$name" matches any value and captures it as `name`.
 */

export const ELLIPSIS = "…"
const CAPTURE = /^\$([A-Za-z_][A-Za-z0-9_]*)$/

export interface Mismatch {
  /** Where, as a JSON path (`data.contacts[0].email`; empty: the whole body). */
  readonly path: string
  readonly shown: unknown
  readonly actual: unknown
}

const describe = (v: unknown) => (v === undefined ? "(absent)" : JSON.stringify(v))

export const mismatchText = (m: Mismatch): string =>
  `at ${m.path === "" ? "(the body)" : m.path}: the page shows ${describe(m.shown)}, the platform answered ${describe(m.actual)}`

const join = (path: string, key: string | number) =>
  typeof key === "number" ? `${path}[${key}]` : /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? (path === "" ? key : `${path}.${key}`) : `${path}[${JSON.stringify(key)}]`

/** The first mismatch (depth first, in the order shown), or undefined; captures go into `captured`. */
export const match = (shown: unknown, actual: unknown, captured: Map<string, unknown>, path = ""): Mismatch | undefined => {
  if (shown === ELLIPSIS) return actual === undefined ? { path, shown, actual } : undefined
  if (typeof shown === "string") {
    const capture = CAPTURE.exec(shown)
    if (capture) {
      if (actual === undefined) return { path, shown, actual }
      captured.set(capture[1]!, actual)
      return undefined
    }
  }
  if (Array.isArray(shown)) {
    if (!Array.isArray(actual)) return { path, shown, actual }
    for (let i = 0; i < shown.length; i++) {
      if (i >= actual.length) return { path: join(path, i), shown: shown[i], actual: undefined }
      const m = match(shown[i], actual[i], captured, join(path, i))
      if (m) return m
    }
    return undefined
  }
  if (shown !== null && typeof shown === "object") {
    if (actual === null || typeof actual !== "object" || Array.isArray(actual)) return { path, shown, actual }
    for (const [key, value] of Object.entries(shown)) {
      if (key === ELLIPSIS) continue
      const m = match(value, (actual as Record<string, unknown>)[key], captured, join(path, key))
      if (m) return m
    }
    return undefined
  }
  return Object.is(shown, actual) ? undefined : { path, shown, actual }
}

const VARIABLE = /\$([A-Za-z_][A-Za-z0-9_]*)/g

/** A path or header with its variables replaced by their values; an unknown variable is an error naming it. */
export const substitute = (text: string, variables: ReadonlyMap<string, unknown>): string =>
  text.replace(VARIABLE, (_all, name: string) => {
    if (!variables.has(name)) throw new Error(`$${name} is not defined (not captured by an earlier answer on this page)`)
    return String(variables.get(name))
  })

/** A JSON body with its variables replaced: `"$name"` by the value as JSON (a number stays a number), else as text. */
export const substituteBody = (text: string, variables: ReadonlyMap<string, unknown>): string =>
  text.replace(/"\$([A-Za-z_][A-Za-z0-9_]*)"|\$([A-Za-z_][A-Za-z0-9_]*)/g, (_all, whole: string | undefined, inner: string | undefined) => {
    const name = (whole ?? inner)!
    if (!variables.has(name)) throw new Error(`$${name} is not defined (not captured by an earlier answer on this page)`)
    const value = variables.get(name)
    return whole !== undefined ? JSON.stringify(value) : JSON.stringify(String(value)).slice(1, -1)
  })

/** A value without its `"…": "…"` entries (at any depth): what a shown, abbreviated request body sends. */
export const withoutEllipses = (value: unknown): unknown =>
  Array.isArray(value) ? value.map(withoutEllipses)
  : value !== null && typeof value === "object"
  ? Object.fromEntries(Object.entries(value).filter(([k]) => k !== ELLIPSIS).map(([k, v]) => [k, withoutEllipses(v)]))
  : value

/** The body to send: variables replaced, and a JSON body's `"…": "…"` entries (other keys the page left out) dropped. */
export const requestBody = (text: string, variables: ReadonlyMap<string, unknown>): string => {
  const body = substituteBody(text, variables)
  if (!body.includes(ELLIPSIS)) return body
  try {
    return JSON.stringify(withoutEllipses(JSON.parse(body)))
  } catch {
    return body
  }
}
