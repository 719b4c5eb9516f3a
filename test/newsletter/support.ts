import { request, type HttpResult } from "../support/platform.ts"

export const ORIGIN = "https://www.hotel-newsletter.example"

let n = Math.floor(Math.random() * 10_000_000)
export const newAddress = (label = "nl") => `${label}${Date.now().toString(36)}${n++}@gmail.com`

/** A sign-up as a page on `origin` sends it (publishable key as Bearer), or as a server with a core key. */
export const signUp = (baseUrl: string, key: string, body: Record<string, unknown>, headers: Record<string, string> = { origin: ORIGIN }): Promise<HttpResult> =>
  request(baseUrl, "POST", "/api/v1/newsletter/subscribe", { key, body: { consent: true, ...body }, headers })

export const configure = async (baseUrl: string, coreKey: string, body: Record<string, unknown>) => {
  const res = await request(baseUrl, "PATCH", "/api/v1/newsletter/config", { key: coreKey, body })
  if (res.status !== 200) throw new Error(`newsletter config failed: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body.data as { publishable_key: string }
}

/** The confirmation link of the email a guest received. */
export const linkIn = (text: string | undefined): string => {
  const m = /(https?:\/\/\S+\/api\/public\/newsletter\/confirm\?token=\S+)/.exec(text ?? "")
  if (m === null) throw new Error(`no confirmation link in: ${text}`)
  return m[1]!
}

/** POST of the confirmation page's form, as a browser submits it. */
export const submitConfirm = async (link: string, userAgent = "Mozilla/5.0 (newsletter test)") => {
  const token = new URL(link).searchParams.get("token")!
  const res = await fetch(new URL(link).origin + "/api/public/newsletter/confirm", {
    method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", "user-agent": userAgent }, body: new URLSearchParams({ token })
  })
  return { status: res.status, text: await res.text(), headers: res.headers }
}
