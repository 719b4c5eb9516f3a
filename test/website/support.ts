import { createHmac } from "node:crypto"
import { type HttpResult, request } from "../support/platform.ts"

// Helpers of the website-events tests: sources through the real API, events through the real routes.

export const ORIGIN = "https://shop.hotel-guests.net"

export interface Source {
  readonly source_id: string
  readonly server_key: string
  readonly browser_key: string
  readonly webhook_token: string
  readonly webhook_url: string
  readonly signing_secret?: string
}

export const createSource = async (baseUrl: string, coreKey: string, body: Record<string, unknown> = {}): Promise<Source> => {
  const res = await request(baseUrl, "POST", "/api/v1/website-sources", {
    key: coreKey, body: { name: `Site ${Math.random().toString(36).slice(2, 8)}`, allowed_origins: [ORIGIN], ...body }
  })
  if (res.status !== 201) throw new Error(`source not created: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body as Source
}

/** POST /api/v1/website-events with the server key (Bearer). */
export const serverPost = (baseUrl: string, key: string, body: unknown, headers: Record<string, string> = {}): Promise<HttpResult> =>
  request(baseUrl, "POST", "/api/v1/website-events", { key, raw: typeof body === "string" ? body : JSON.stringify(body), headers })

/** As a browser beacon: text/plain, the browser key in ?key=, an Origin. */
export const browserPost = (
  baseUrl: string, key: string, body: unknown, o: { origin?: string | null; viaHeader?: boolean; userAgent?: string } = {}
): Promise<HttpResult> => {
  const headers: Record<string, string> = { ...(o.userAgent === undefined ? {} : { "user-agent": o.userAgent }) }
  if (o.origin !== null) headers["origin"] = o.origin ?? ORIGIN
  if (o.viaHeader) headers["x-svc-key"] = key
  const path = o.viaHeader ? "/api/v1/website-events" : `/api/v1/website-events?key=${encodeURIComponent(key)}`
  return request(baseUrl, "POST", path, { raw: JSON.stringify(body), contentType: "text/plain;charset=UTF-8", headers })
}

export const sign = (secret: string, t: number, raw: string) => createHmac("sha256", secret).update(`${t}.${raw}`).digest("hex")

export const hookPost = (
  baseUrl: string, token: string, body: unknown, o: { signature?: string; test?: boolean; raw?: string } = {}
): Promise<HttpResult> =>
  request(baseUrl, "POST", `/api/v1/website-events/hooks/${token}${o.test ? "?test=1" : ""}`, {
    raw: o.raw ?? JSON.stringify(body), headers: o.signature === undefined ? {} : { "x-svc-signature": o.signature }
  })

let n = 0
export const unique = (label: string) => `${label}-${Date.now().toString(36)}-${++n}`
export const guestEmail = () => `${unique("guest")}@hotel-guests.net`
