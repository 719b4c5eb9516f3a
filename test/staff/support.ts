import { expect } from "@effect/vitest"
import type postgres from "postgres"
import { startMailingPlatform, useEncryptionKey } from "../support/messaging.ts"
import type { SmtpSink } from "../support/smtpSink.ts"
import { type HttpResult, request } from "../support/platform.ts"

// Staff members and their sessions, as the console makes them: added with a staff:manage key, signed in with the code
// the SMTP sink caught, then requests with the cookie (and the CSRF token on writes).

let n = 0
export const staffEmail = (label = "staff") => `${label}.${Date.now().toString(36)}${n++}@hotelexample.com`

export interface StaffSession {
  readonly cookie: string
  readonly csrf: string
  readonly staff_id: string
  readonly setCookie: string
}

export const addStaff = async (baseUrl: string, key: string, email: string, role: string) => {
  const res = await request(baseUrl, "POST", "/api/v1/staff", { key, body: { email, role } })
  expect(res.status, JSON.stringify(res.body)).toBe(201)
  return res.body.data.staff_id as string
}

/** The code of the latest sign-in email to `email` (waits for it to arrive). */
export const codeFor = async (sink: SmtpSink, email: string, after = 0) => {
  for (let i = 0; i < 100; i++) {
    const mail = sink.mails.slice(after).filter((m) => m.to.includes(email)).at(-1)
    if (mail !== undefined) return { code: /\b(\d{6})\b/.exec(mail.subject)![1]!, mail }
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`no sign-in email reached ${email}`)
}

export const signIn = async (baseUrl: string, sink: SmtpSink, email: string): Promise<StaffSession> => {
  const before = sink.mails.length
  const asked = await request(baseUrl, "POST", "/api/v1/staff/sign-in", { body: { email } })
  expect(asked.status, JSON.stringify(asked.body)).toBe(202)
  const { code } = await codeFor(sink, email, before)
  const res = await request(baseUrl, "POST", "/api/v1/staff/sign-in/verify", { body: { email, code } })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  const setCookie = res.headers.get("set-cookie")!
  return { cookie: setCookie.split(";")[0]!, csrf: res.body.data.csrf_token, staff_id: res.body.data.staff.staff_id, setCookie }
}

/** A request with the session's cookie; the CSRF token sent unless `csrf` is given (null: none). */
export const asStaff = (baseUrl: string, s: StaffSession, method: string, path: string, options: { body?: unknown; csrf?: string | null; headers?: Record<string, string> } = {}): Promise<HttpResult> => {
  const csrf = options.csrf === undefined ? s.csrf : options.csrf
  return request(baseUrl, method, path, {
    ...(options.body === undefined ? {} : { body: options.body }),
    headers: { cookie: s.cookie, ...(csrf === null ? {} : { "x-csrf-token": csrf }), ...options.headers }
  })
}

/**
 * A platform whose email reaches the SMTP sink, with a tenant whose channel sends from stay@hotelexample.com. Every
 * sign-in of the run comes from 127.0.0.1 and test files share the rate counters: the per-IP limit would bind across files.
 */
export const staffPlatform = () => {
  const key = useEncryptionKey()
  process.env.GEP_STAFF_CODES_PER_IP_PER_MINUTE = "100000"
  return { key, start: (sql: postgres.Sql, name: string) => startMailingPlatform(sql, key, name) }
}
