import { phone } from "../support/fixtures.ts"
import { post } from "../support/platform.ts"

export const FULL = process.env.CHAOS_SIZE === "full"

/** One request of an open- or closed-loop fault test: its reservation, when it was sent and answered (ms into the run), its status. */
export interface TimedAnswer {
  readonly id: string
  readonly at: number
  readonly ms: number
  readonly status: number
  readonly retryAfter: string | null
}

export interface LoadResult {
  /** The value of the last update answered 2xx, per reservation id. */
  readonly lastAcked: Map<string, number>
  readonly answered2xx: number
  readonly answered503: number
  readonly other: Array<number>
  /** 503 answers that came without a Retry-After header (must stay 0). */
  readonly missingRetryAfter: number
}

/**
 * `total` upserts over `ids` reservation ids: each id's updates are sent one after another, each carrying an
 * increasing `amount`; ids run concurrently. A 503 is retried as the API says (same body, after a short wait), so
 * every update is eventually acknowledged and the last one sent is the last one acknowledged.
 *
 * `until` is the fault under test: the ids being written keep taking updates until it has settled, so the load is
 * still running when the fault strikes on a machine fast enough to send `total` before it (CI saw 0 answers 503
 * when 700 updates finished inside the 2 s before PostgreSQL was stopped).
 */
export const runLoad = async (baseUrl: string, key: string, hotelCode: string, opts: { ids: number; total: number; concurrency: number; prefix: string; until?: Promise<unknown> }): Promise<LoadResult> => {
  const perId = Math.ceil(opts.total / opts.ids)
  let faultOver = opts.until === undefined
  const over = () => { faultOver = true }
  opts.until?.then(over, over)
  const lastAcked = new Map<string, number>()
  let answered2xx = 0
  let answered503 = 0
  let missingRetryAfter = 0
  const other: Array<number> = []
  let next = 0
  const worker = async () => {
    for (;;) {
      const i = next++
      if (i >= opts.ids) return
      const id = `${opts.prefix}-${i}`
      for (let v = 1; v <= perId || !faultOver; v++) {
        const body = {
          reservation_id: id, hotel_code: hotelCode, check_in: "2026-12-01", check_out: "2026-12-03", amount: v,
          guests: [{ first_name: "Chaos", phone: phone(500_000 + i), email: `chaos${i}@gmail.com`, is_holder: true }, { first_name: "Shared", phone: phone(9_999) }]
        }
        for (let attempt = 0; ; attempt++) {
          const res = await post(baseUrl, "/api/v1/reservations", key, body).catch(() => ({ status: 0, headers: new Headers() }))
          if (res.status === 200 || res.status === 201) {
            answered2xx++
            lastAcked.set(id, v)
            break
          }
          if (res.status === 503 && !res.headers.get("retry-after")) missingRetryAfter++
          if (res.status === 503 || res.status === 0) answered503++
          else other.push(res.status)
          if (attempt > 200) throw new Error(`update ${id}#${v} never acknowledged (last status ${res.status})`)
          await new Promise((r) => setTimeout(r, 100 + Math.random() * 200))
        }
      }
    }
  }
  await Promise.all(Array.from({ length: opts.concurrency }, worker))
  return { lastAcked, answered2xx, answered503, other, missingRetryAfter }
}
