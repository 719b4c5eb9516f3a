// The browser script served at /sdk/svc-events.js (compiled by src/sdk/bundle.ts into one IIFE, no dependencies).
// No cookies, no localStorage; sessionStorage only with persistContact and consent. Every public command is guarded:
// a fault here must never break the booking page it runs on.
import { capped, fitting, MAX_BYTES, retryable, retryDelay } from "./policy.ts"

type Dict = Record<string, unknown>
type Cart = Dict & { cart_id?: string; stage?: string; properties?: Dict }
interface Options {
  key: string
  hotelCode?: string
  hotelId?: string
  debug?: boolean
  persistContact?: boolean
  waitForConsent?: boolean
  endpoint?: string
}

const STORE = "svc_events"
const TYPE = "text/plain;charset=UTF-8"
const win = window as unknown as Dict
const src = (document.currentScript as HTMLScriptElement | null)?.src ?? location.href

let o: Options | undefined
let url = ""
let consent: "pending" | "granted" | "denied" = "pending"
let stopped = false
let queue: Array<Dict> = []
let contact: Dict | undefined
let claim: Dict | undefined
let sent: Array<string> = []
let done: Array<string> = []
let session = ""
let getCart: (() => Cart | null | undefined) | undefined
let attempt = 0
let busy = false
let timer: ReturnType<typeof setTimeout> | undefined
const warned: Dict = {}

const log = (...a: Array<unknown>) => { if (o?.debug) console.warn("[svc-events]", ...a) }
const once = (k: string, ...a: Array<unknown>) => { if (!warned[k]) { warned[k] = 1; log(...a) } }
const now = () => new Date().toISOString()
const rid = () => Math.random().toString(36).slice(2) + Date.now().toString(36)
const clip = (s: string) => s.slice(0, 2048)

const save = () => {
  if (!o?.persistContact || consent !== "granted") return
  try { sessionStorage.setItem(STORE, JSON.stringify({ contact, claim, sent, done, session })) } catch { /* full or blocked */ }
}
const load = () => {
  if (!o?.persistContact) return
  try {
    const s = JSON.parse(sessionStorage.getItem(STORE) ?? "null")
    if (s) {
      contact ??= s.contact; claim ??= s.claim; session = s.session || session
      sent = [...new Set(sent.concat(s.sent ?? []))]; done = [...new Set(done.concat(s.done ?? []))]
    }
  } catch { /* unreadable: start afresh */ }
}

const cap = () => {
  const before = queue.length
  queue = capped(queue)
  if (queue.length < before) once("cap", "queue full: oldest events dropped")
}

/** The head of the queue that fits one request (50 events, 60 KB). */
const take = () => queue.splice(0, fitting(queue.slice(0, 50).map((e) => JSON.stringify(e).length)))

/** Send now (explicit flush, completion), unless a retry is waiting out its delay. */
const flushNow = () => {
  if (attempt > 0) return
  if (timer !== undefined) { clearTimeout(timer); timer = undefined }
  flush()
}

const schedule = (ms: number) => { if (timer === undefined) timer = setTimeout(() => { timer = undefined; flush() }, ms) }

const post = (body: string) =>
  fetch(url, { method: "POST", body, keepalive: body.length < MAX_BYTES, credentials: "omit", headers: { "Content-Type": TYPE } })

async function flush(): Promise<void> {
  if (!o || consent !== "granted" || stopped || busy || queue.length === 0 || timer !== undefined) return
  if (!navigator.onLine) return // the "online" listener flushes; offline time does not count as attempts
  busy = true
  const batch = take()
  let status = 0
  let header: string | null = null
  try {
    const r = await post(JSON.stringify({ events: batch }))
    status = r.status
    header = r.headers.get("Retry-After")
    if (status === 202 && o.debug) {
      const b = await r.json()
      for (const x of b.results ?? []) if (x.status === "rejected") once("r" + x.code, "event rejected:", x.code, x.message, x.issues ?? "")
    }
  } catch { /* network error: status 0 */ }
  busy = false
  if (retryable(status)) {
    const wait = retryDelay(++attempt, header, Date.now())
    if (wait !== undefined) {
      queue = batch.concat(queue)
      cap()
      return schedule(wait)
    }
    once("gave-up", "gave up after 5 attempts; events dropped:", batch.length)
  } else if (status >= 300) {
    once("s" + status, "request refused with", status, "(not retried)")
    if (status === 401 || status === 403) stopped = true // a dead key or an unlisted origin: every request would fail alike
  }
  attempt = 0
  if (queue.length > 0) flush()
}

/** Page going away: everything waiting leaves by beacon, or by a keepalive fetch when the beacon is refused. */
const beacon = () => {
  if (timer !== undefined) { clearTimeout(timer); timer = undefined }
  attempt = 0
  while (queue.length > 0) {
    const body = JSON.stringify({ events: take() })
    let ok = false
    try { ok = navigator.sendBeacon(url, new Blob([body], { type: TYPE })) } catch { /* treated as refused */ }
    if (!ok) post(body).catch(() => undefined)
  }
}

const base = (): Dict => ({
  ...(o?.hotelCode ? { hotel_code: o.hotelCode } : {}),
  ...(o?.hotelId ? { hotel_id: o.hotelId } : {}),
  session_id: session,
  page_url: clip(location.href),
  ...(document.referrer ? { referrer: clip(document.referrer) } : {})
})

const build = (event: string, d: Dict = {}): Dict => {
  const e: Dict = { event, occurred_at: now(), ...d, context: { ...base(), ...(d.context as Dict) } }
  if (contact && !e.contact) e.contact = contact
  if (claim && e.contact === contact && !e.consent) e.consent = claim
  return e
}

const enqueue = (e: Dict) => {
  if (!o || consent === "denied" || stopped) return
  queue.push(e)
  cap()
  if (consent === "granted") schedule(1000)
}

// The contract's context fields: a cart's other fields are left out, since one unknown key would get the whole
// abandonment event refused.
const CONTEXT = ("hotel_id hotel_code hotel_name stage check_in check_out adults children rooms room_name rate_name value " +
  "currency cart_id session_id resume_url page_url referrer").split(" ")

const cartContext = (cart: Cart): Dict => {
  const context: Dict = {}
  for (const k of CONTEXT) if (cart[k] !== undefined && cart[k] !== null) context[k] = cart[k]
  return context
}

const abandon = () => {
  const cart = getCart?.()
  const id = cart?.cart_id
  const stage = cart?.stage
  if (!cart || !id || !stage || !(contact?.email || contact?.phone) || done.includes(id)) return
  const k = stage + ":" + id
  if (sent.includes(k)) return
  sent.push(k)
  save()
  enqueue(build("cart.abandoned", {
    context: cartContext(cart), ...(cart.properties ? { properties: cart.properties } : {}),
    idempotency_key: ("cart.abandoned:" + k).slice(0, 200)
  }))
}

const leave = () => {
  if (consent !== "granted" || stopped) return
  try { abandon() } catch (e) { log("getCart failed", e) }
  beacon()
}

const api: Dict = {
  init(opts: Options) {
    if (!opts || !/^svc_pk_/.test(opts.key)) {
      console.error("[svc-events] init needs the source's browser key (svc_pk_...); never put a server key in a page")
      return
    }
    const first = !o
    o = opts
    url = new URL(opts.endpoint ?? "/api/v1/website-events", src).href
    url += (url.includes("?") ? "&" : "?") + "key=" + encodeURIComponent(opts.key)
    if (consent !== "denied") consent = opts.waitForConsent ? "pending" : "granted"
    session ||= "s_" + rid()
    if (consent === "granted") { load(); save() }
    if (first) {
      addEventListener("pagehide", leave)
      document.addEventListener("visibilitychange", () => { if (document.visibilityState === "hidden") leave() })
      addEventListener("online", () => { flush() })
    }
  },
  track(event: string, data?: Dict) { enqueue(build(event, data)) },
  identify(who: Dict, evidence?: Dict) {
    const next: Dict = {}
    for (const k of ["email", "phone", "first_name", "last_name", "language"]) if (who?.[k]) next[k] = who[k]
    if (contact?.email !== next.email || contact?.phone !== next.phone) claim = undefined
    contact = next
    if (evidence?.text) claim = { email_marketing: evidence.email_marketing !== false, captured_at: now(), ...evidence }
    save()
  },
  abandonOnLeave(f: () => Cart | null | undefined) { getCart = f },
  completed(cart?: Cart) {
    const c = cart ?? getCart?.()
    if (c?.cart_id) { done.push(c.cart_id); save() }
    enqueue(build("checkout.completed", c ? { context: cartContext(c), ...(c.properties ? { properties: c.properties } : {}) } : {}))
    flushNow()
  },
  allow() {
    if (consent !== "pending") return
    consent = "granted"
    load()
    save()
    schedule(0)
  },
  deny() {
    consent = "denied"
    queue = []
    contact = claim = undefined
    try { sessionStorage.removeItem(STORE) } catch { /* blocked */ }
  },
  flush() { flushNow() },
  reset() {
    queue = []; contact = claim = undefined; sent = []; done = []; session = "s_" + rid()
    try { sessionStorage.removeItem(STORE) } catch { /* blocked */ }
  }
}

for (const k of Object.keys(api)) {
  const f = api[k] as (...a: Array<unknown>) => unknown
  api[k] = (...a: Array<unknown>) => { try { f(...a) } catch (e) { log(k, "failed", e) } }
}
// A snippet may queue commands before the script loads: window.svcEvents = [["init", {...}], ["track", ...]].
const early = win.svcEvents
win.svcEvents = api
if (Array.isArray(early)) for (const [k, ...a] of early) (api[k] as ((...x: Array<unknown>) => void) | undefined)?.(...a)
