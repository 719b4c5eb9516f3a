/** The privacy phase's section of the Markdown report (test/bench/privacy.ts). */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the result is a plain JSON document built in bench.ts
type Json = any

const n = (x: unknown, digits = 0): string =>
  x === null || x === undefined || Number.isNaN(x) ? "–" : Number(x).toLocaleString("en-US", { maximumFractionDigits: digits })
const s = (ms: unknown, digits = 1) => (typeof ms === "number" ? n(ms / 1000, digits) : "–")

/** The bounds: an erasure completed within 7 days ("typically minutes"), an export within 72 hours. */
const ERASE_BOUND_MS = 7 * 24 * 3600_000
const EXPORT_BOUND_MS = 72 * 3600_000

/** What a step's time is spent on (the request's saved step; `wait` while none is saved yet). */
const STEPS: ReadonlyArray<[string, string]> = [
  ["wait", "settle wait (suppression caches, fixed)"],
  ["drain", "drain: consumers up to the marks taken after the wait"],
  ["settle", "drain again: up to marks taken after the first drain"],
  ["erase", "suppress the resolved identifiers, erase every store"],
  ["streams", "erase retained stream messages"],
  ["final", "erase every store again"],
  ["notify", "contact.deleted and the audit row"]
]

/**
 * A store grows with the account when its time on the whole is at least three times its time on a tenth and worth
 * noticing (5 ms or more): an index lookup takes about the same time on both.
 */
const grows = (tenth: number, whole: number) => whole >= 5 && whole >= 3 * Math.max(tenth, 0.1)

export const privacyLines = (pv: Json): Array<string> => {
  if (!pv) return []
  const within = (ms: number | null, bound: number) => (ms === null ? "–" : ms <= bound ? "within" : "**over**")
  const stores = Object.keys(pv.stores.at_whole) as Array<string>
  const growing = stores.filter((k) => grows(pv.stores.at_tenth[k]?.ms ?? 0, pv.stores.at_whole[k].ms))
  const sc = pv.stream_scan
  return [
    "## Privacy: suppress, export and erase on an account of its own",
    "",
    `${n(pv.contacts)} guests filled by SQL in ${n(pv.fill_s, 1)} s (test/bench/privacyFill.ts: a contact each, one or two stays with its guest ` +
      "row, booking and partner events, an email, a call for a tenth, the contact.created webhook body of each, a stored Idempotency-Key " +
      "answer for a fifth), then through the API and the workers' runner: suppressions on distinct guests, one guest exported, then erased. " +
      "The issue's bounds: erasure completed within 7 days (\"typically minutes\"), export within 72 hours.",
    "",
    "| figure | value | bound |",
    "|---|---:|---|",
    `| suppress: POST → 202 (completed in the request), p50 of ${n(pv.suppress_latency_ms.count)} (p95 ${n(pv.suppress_latency_ms.p95, 1)}, max ${n(pv.suppress_latency_ms.max, 1)}), ms | **${n(pv.suppress_p50_ms, 1)}** | – |`,
    `| export: 202 → ${pv.export_status}, s | **${s(pv.export_ms, 2)}** | 72 h: ${within(pv.export_ms, EXPORT_BOUND_MS)} |`,
    `| erase: 202 → ${pv.erase_status}, s | **${s(pv.erase_total_ms, 2)}** | 7 days: ${within(pv.erase_total_ms, ERASE_BOUND_MS)} |`,
    `| of which the fixed settle wait, s (share) | ${s(pv.erase_settle_ms, 2)} (${n(100 * (pv.erase_settle_share ?? 0), 0)} %) | – |`,
    `| erase without the settle wait, s | **${s(pv.erase_without_settle_ms, 2)}** | – |`,
    `| stream erasure's scan (every stream of the deployment up to now, in the bench process): ${n(sc.messages_scanned)} messages in ${n(sc.ms)} ms, messages/s | ${n(sc.per_s)} | – |`,
    "",
    "Where the erasure's time went (its saved step, polled every 25 ms; a step shorter than that counts in the next):",
    "",
    "| step | ms |",
    "|---|---:|",
    ...STEPS.filter(([k]) => pv.erase_steps_ms[k] !== undefined).map(([k, label]) => `| ${k}: ${label} | ${n(pv.erase_steps_ms[k], 1)} |`),
    "",
    `Each store erased for one guest (the runner's code and order, batches of 500, in the bench process; the median of 5 runs, the first erasing, the rest searching) on the first ${n(pv.stores.contacts_at_tenth)} ` +
      `guests of the account and again on all ${n(pv.contacts)}: ${n(pv.stores.at_tenth_total_ms, 1)} ms and ${n(pv.stores.at_whole_total_ms, 1)} ms in all (a pass; an erasure makes two). ` +
      (growing.length === 0
        ? "No store's time grows with the account."
        : `Growing with the account (3× or more, 5 ms or more): **${growing.join(", ")}**.`),
    "",
    "| store | rows erased | ms, first tenth | ms, whole account |",
    "|---|---:|---:|---:|",
    ...stores.map((k) => {
      const w = pv.stores.at_whole[k], t = pv.stores.at_tenth[k]
      const mark = growing.includes(k) ? "**" : ""
      return `| ${k} | ${n(w.count)} | ${n(t?.ms, 1)} | ${mark}${n(w.ms, 1)}${mark} |`
    }),
    ""
  ]
}
