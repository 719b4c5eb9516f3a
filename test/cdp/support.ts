import { request, type HttpResult } from "../support/platform.ts"

let n = 0
export const unique = (label: string) => `${label}-${Date.now().toString(36)}-${++n}`

export const cdp = (baseUrl: string, key: string) => ({
  settings: (body?: unknown) => request(baseUrl, body === undefined ? "GET" : "PATCH", "/api/v1/cdp/settings", body === undefined ? { key } : { key, body }),
  events: (body: unknown, origin?: string): Promise<HttpResult> =>
    request(baseUrl, "POST", "/api/v1/cdp/events", { key, body, ...(origin === undefined ? {} : { headers: { origin } }) }),
  identify: (body: unknown) => request(baseUrl, "POST", "/api/v1/cdp/identify", { key, body }),
  reservation: (body: unknown) => request(baseUrl, "POST", "/api/v1/cdp/reservations", { key, body }),
  batch: (reservations: ReadonlyArray<unknown>) => request(baseUrl, "POST", "/api/v1/cdp/reservations/batch", { key, body: { reservations } }),
  bulk: (reservations: ReadonlyArray<unknown>, idempotency_key?: string) =>
    request(baseUrl, "POST", "/api/v1/cdp/reservations/bulk", { key, body: { reservations, ...(idempotency_key === undefined ? {} : { idempotency_key }) } }),
  status: (id: string) => request(baseUrl, "GET", `/api/v1/cdp/batches/${id}`, { key })
})

export const pageView = (url: string, ts = new Date().toISOString()) => ({ type: "page_view", url, title: "Rooms", ts })

/** Polls a bulk job until it is completed (or failed). */
export const untilDone = async (get: () => Promise<HttpResult>, timeoutMs = 120_000) => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const res = await get()
    if (res.status === 200 && ["completed", "failed"].includes(res.body.data.status)) return res.body.data
    if (Date.now() > deadline) throw new Error(`bulk job not done: ${JSON.stringify(res.body)}`)
    await new Promise((r) => setTimeout(r, 250))
  }
}
