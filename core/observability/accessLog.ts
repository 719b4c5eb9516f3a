/**
 * The access log: one JSON line on stderr per HTTP answer, in the log lines' format (`ts`, `level`, `msg` first), with
 * what an operator joins and counts by and nothing a caller sent beyond it:
 *
 *   {"ts":"…","level":"info","msg":"request","request_id":"req_…","method":"GET","route":"/api/v1/contacts/:contact_id",
 *    "status":200,"duration_ms":3.1,"bytes":2114,"tenant_id":"…","key_prefix":"svckr_AbCd"}
 *
 * `route` is the route's template (never the path: some path values are tokens), `key_prefix` the key's display
 * prefix (never the key), `tenant_id` and `key_prefix` null when the request carried no credential we accepted.
 * Independent of GEP_LOG_LEVEL, as a web server's access log is of its error log: GEP_ACCESS_LOG is `on` (the default),
 * `off`, or the share of answers written (`0.1`: one in ten, at random); 5xx answers are always written.
 */
export interface AccessLine {
  readonly request_id: string
  readonly method: string
  readonly route: string
  readonly status: number
  readonly duration_ms: number
  readonly bytes: number | null
  readonly tenant_id: string | null
  readonly key_prefix: string | null
}

/** The share of answers written: 1 for `on` or unset, 0 for `off`, the number for a number in [0, 1]. */
export const accessLogShare = (value: string | undefined): number => {
  if (value === undefined || value === "" || value === "on") return 1
  if (value === "off") return 0
  const share = Number(value)
  return Number.isFinite(share) && share >= 0 && share <= 1 ? share : 1
}

const share = accessLogShare(process.env.GEP_ACCESS_LOG)

/**
 * Lines of this event-loop turn, written together at its end: one write to stderr per turn instead of one per answer.
 * A saturated ingress answers (or turns away) hundreds of requests a turn, and a write to a pipe is a system call that
 * also wakes whatever reads it; the lines keep their order and their own times. Written at once on exit.
 */
let pending: Array<string> = []
let scheduled = false

const flush = () => {
  scheduled = false
  if (pending.length === 0) return
  const text = pending.join("")
  pending = []
  process.stderr.write(text)
}
process.once("exit", flush)

export const writeAccessLine = (line: AccessLine, random: () => number = Math.random): void => {
  if (line.status < 500 && (share === 0 || (share < 1 && random() >= share))) return
  pending.push(JSON.stringify({ ts: new Date().toISOString(), level: "info", msg: "request", ...line }) + "\n")
  if (!scheduled) {
    scheduled = true
    setImmediate(flush)
  }
}
