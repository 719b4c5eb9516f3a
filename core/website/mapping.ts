import { isObject, type Issue } from "./fields.ts"

// Webhook mapping: a partner's JSON → a contract event candidate, data only (no code): each target takes a payload
// path, a fixed value or a `{{path}}` template, then an optional transform, then an optional word map. Pure.

export const TRANSFORMS = ["lower", "upper", "trim", "number", "boolean", "date", "datetime"] as const
export type Transform = typeof TRANSFORMS[number]
type Scalar = string | number | boolean

export type Rule = ({ readonly path: string } | { readonly value: Scalar } | { readonly template: string }) & {
  readonly transform?: Transform
  readonly map?: Readonly<Record<string, Scalar>>
}
export type Mapping = Readonly<Record<string, Rule>>

export type WarningReason = "path_not_found" | "transform_failed" | "unsupported_value" | "unsafe_path"
export interface MappingWarning {
  readonly target: string
  readonly reason: WarningReason
  readonly detail?: string
}

const TOP = ["event", "occurred_at", "idempotency_key", "test"]
const NESTED: Record<string, ReadonlyArray<string>> = {
  contact: ["email", "phone", "first_name", "last_name", "language"],
  consent: ["email_marketing", "text", "captured_at", "language", "form_id"],
  context: ["hotel_id", "hotel_code", "hotel_name", "stage", "check_in", "check_out", "adults", "children", "rooms",
    "room_name", "rate_name", "value", "currency", "cart_id", "session_id", "resume_url", "page_url", "referrer"]
}
const UNSAFE = new Set(["__proto__", "prototype", "constructor"])
const MAX_TARGETS = 60

export const targetKnown = (t: string): boolean => {
  if (TOP.includes(t)) return true
  const [head, name, ...rest] = t.split(".")
  if (rest.length > 0 || name === undefined) return false
  if (head === "properties") return /^[a-z0-9_]{1,64}$/.test(name)
  return NESTED[head!]?.includes(name) ?? false
}

type Step = string | number
/** `a.b[0].c` → ["a","b",0,"c"]; undefined when malformed. */
export const parsePath = (path: string): Array<Step> | undefined => {
  if (path.length === 0 || path.length > 200) return undefined
  const steps: Array<Step> = []
  for (const part of path.split(".")) {
    const m = /^([^[\]]+)((?:\[\d{1,6}\])*)$/.exec(part)
    if (m === null) return undefined
    steps.push(m[1]!)
    for (const idx of m[2]!.matchAll(/\[(\d+)\]/g)) steps.push(Number(idx[1]))
  }
  return steps
}

type Lookup = { found: true; value: unknown } | { found: false; reason: "path_not_found" | "unsafe_path" }
const lookup = (payload: unknown, path: string): Lookup => {
  const steps = parsePath(path)
  if (steps === undefined) return { found: false, reason: "path_not_found" }
  if (steps.some((s) => typeof s === "string" && UNSAFE.has(s))) return { found: false, reason: "unsafe_path" }
  let at: unknown = payload
  for (const s of steps) {
    if (typeof s === "number" ? Array.isArray(at) && s < at.length : isObject(at) && Object.hasOwn(at, s)) at = (at as any)[s]
    else return { found: false, reason: "path_not_found" }
  }
  return at === null || at === undefined ? { found: false, reason: "path_not_found" } : { found: true, value: at }
}

const transform = (t: Transform, v: unknown): { ok: true; value: unknown } | { ok: false } => {
  const s = typeof v === "string" ? v : typeof v === "number" || typeof v === "boolean" ? String(v) : undefined
  if (s === undefined) return { ok: false }
  switch (t) {
    case "lower": return { ok: true, value: s.toLowerCase() }
    case "upper": return { ok: true, value: s.toUpperCase() }
    case "trim": return { ok: true, value: s.trim() }
    case "number": {
      const n = typeof v === "number" ? v : s.trim() === "" ? NaN : Number(s.trim())
      return Number.isFinite(n) ? { ok: true, value: n } : { ok: false }
    }
    case "boolean": {
      const b = s.trim().toLowerCase()
      return ["true", "1", "yes", "y"].includes(b) ? { ok: true, value: true } : ["false", "0", "no", "n"].includes(b) ? { ok: true, value: false } : { ok: false }
    }
    case "date": {
      if (/^\d{4}-\d{2}-\d{2}$/.test(s.trim())) return { ok: true, value: s.trim() }
      const d = Date.parse(s)
      return Number.isNaN(d) ? { ok: false } : { ok: true, value: new Date(d).toISOString().slice(0, 10) }
    }
    case "datetime": {
      const d = typeof v === "number" ? (v < 1e11 ? v * 1000 : v) : Date.parse(s)
      return Number.isNaN(d) || !Number.isFinite(d) ? { ok: false } : { ok: true, value: new Date(d).toISOString() }
    }
  }
}

const valueOf = (rule: Rule, payload: unknown): Lookup => {
  if ("value" in rule) return { found: true, value: rule.value }
  if ("path" in rule) return lookup(payload, rule.path)
  let out = ""
  let last = 0
  for (const m of rule.template.matchAll(/\{\{\s*([^{}\s]+)\s*\}\}/g)) {
    const got = lookup(payload, m[1]!)
    if (!got.found) return got
    if (typeof got.value === "object") return { found: false, reason: "path_not_found" }
    out += rule.template.slice(last, m.index) + String(got.value)
    last = m.index! + m[0].length
  }
  return { found: true, value: out + rule.template.slice(last) }
}

/** The candidate event and the warnings of each target that could not be filled (the target is then left out). */
export const applyMapping = (mapping: Mapping, payload: unknown): { candidate: Record<string, unknown>; warnings: Array<MappingWarning> } => {
  const candidate: Record<string, unknown> = {}
  const warnings: Array<MappingWarning> = []
  for (const [target, rule] of Object.entries(mapping)) {
    const got = valueOf(rule, payload)
    if (!got.found) {
      warnings.push({ target, reason: got.reason, detail: "path" in rule ? rule.path : "template" in rule ? rule.template : undefined })
      continue
    }
    let value = got.value
    if (typeof value === "object") {
      warnings.push({ target, reason: "unsupported_value", detail: "the value is an object or array, not a single value" })
      continue
    }
    if (rule.transform !== undefined) {
      const t = transform(rule.transform, value)
      if (!t.ok) {
        warnings.push({ target, reason: "transform_failed", detail: `${rule.transform} of ${JSON.stringify(value).slice(0, 80)}` })
        continue
      }
      value = t.value
    }
    if (rule.map !== undefined) {
      const word = String(value).trim().toLowerCase()
      const hit = Object.entries(rule.map).find(([from]) => from.trim().toLowerCase() === word)
      if (hit === undefined) {
        warnings.push({ target, reason: "unsupported_value", detail: `${JSON.stringify(String(value).slice(0, 80))} is not in the map` })
        continue
      }
      value = hit[1]
    }
    const [head, name] = target.split(".")
    if (name === undefined) candidate[head!] = value
    else {
      const inner = (candidate[head!] ??= {}) as Record<string, unknown>
      inner[name] = value
    }
  }
  return { candidate, warnings }
}

const scalar = (v: unknown) => typeof v === "string" || typeof v === "boolean" || (typeof v === "number" && Number.isFinite(v))

/** A mapping as saved: every target known, every rule one source and known options; refused whole otherwise. */
export const mappingIssues = (m: unknown): Array<Issue> => {
  if (!isObject(m)) return [{ field: "mapping", message: "must be an object of target → rule" }]
  const issues: Array<Issue> = []
  const entries = Object.entries(m)
  if (entries.length > MAX_TARGETS) issues.push({ field: "mapping", message: `must have at most ${MAX_TARGETS} targets` })
  for (const [target, rule] of entries) {
    const f = `mapping.${target.slice(0, 80)}`
    if (!targetKnown(target)) issues.push({ field: f, message: "is not a contract field (event, occurred_at, idempotency_key, test, contact.*, consent.*, context.*, properties.<name>)" })
    if (!isObject(rule)) {
      issues.push({ field: f, message: "must be { path } | { value } | { template }, with optional transform and map" })
      continue
    }
    const sources = ["path", "value", "template"].filter((k) => Object.hasOwn(rule, k))
    if (sources.length !== 1) issues.push({ field: f, message: "must have exactly one of path, value, template" })
    for (const k of Object.keys(rule)) if (!["path", "value", "template", "transform", "map"].includes(k)) issues.push({ field: `${f}.${k}`, message: "is not a rule option" })
    if (Object.hasOwn(rule, "path") && (typeof rule.path !== "string" || parsePath(rule.path) === undefined)) issues.push({ field: `${f}.path`, message: "must be a path such as a.b[0].c" })
    if (Object.hasOwn(rule, "path") && typeof rule.path === "string" && (parsePath(rule.path) ?? []).some((s) => typeof s === "string" && UNSAFE.has(s))) issues.push({ field: `${f}.path`, message: "must not name __proto__, prototype or constructor" })
    if (Object.hasOwn(rule, "template") && (typeof rule.template !== "string" || rule.template.length > 500)) issues.push({ field: `${f}.template`, message: "must be text with {{path}} placeholders (at most 500 characters)" })
    if (Object.hasOwn(rule, "value") && !scalar(rule.value)) issues.push({ field: `${f}.value`, message: "must be a string, number or boolean" })
    if (Object.hasOwn(rule, "transform") && !(TRANSFORMS as ReadonlyArray<unknown>).includes(rule.transform)) issues.push({ field: `${f}.transform`, message: `must be one of ${TRANSFORMS.join(", ")}` })
    if (Object.hasOwn(rule, "map") && (!isObject(rule.map) || Object.keys(rule.map).length > 200 || !Object.values(rule.map).every(scalar))) issues.push({ field: `${f}.map`, message: "must be an object of up to 200 words → string, number or boolean" })
  }
  return issues
}
