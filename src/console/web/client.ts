import createClient, { type Middleware } from "openapi-fetch"
import type { paths } from "./api.d.ts"

// The console's one way to the platform: the public API on this origin, typed from the platform's OpenAPI document.
// The staff session travels in its HttpOnly cookie (same origin); every state-changing call carries the session's
// CSRF token, as the API requires of a cookie session.

let csrfToken: string | null = null
export const setCsrfToken = (token: string | null) => { csrfToken = token }

/** Called when the API answers 401 (the session expired or ended elsewhere): the app shows the sign-in again. */
let onSignedOut: () => void = () => {}
export const whenSignedOut = (f: () => void) => { onSignedOut = f }

const SAFE = new Set(["GET", "HEAD", "OPTIONS"])

const session: Middleware = {
  onRequest: ({ request }) => {
    if (!SAFE.has(request.method) && csrfToken !== null) request.headers.set("x-csrf-token", csrfToken)
    return request
  },
  onResponse: ({ response, request }) => {
    if (response.status === 401 && !request.url.includes("/api/v1/staff/")) onSignedOut()
    return response
  }
}

export const api = createClient<paths>({ baseUrl: location.origin, credentials: "same-origin" })
api.use(session)

/** A failed call's message for the page: the API's own words where it gave them. */
export class ApiFailure extends Error {
  constructor(readonly status: number, readonly code: string, message: string) { super(message) }
}

interface Answer<D> { readonly data?: D; readonly error?: unknown; readonly response: Response }

/** The data of a successful answer, or an ApiFailure naming the status and the API's code and message. */
export const dataOf = async <D extends { data: unknown }>(call: Promise<Answer<D>>): Promise<D["data"]> => {
  const { data, error, response } = await call
  if (data !== undefined) return data.data
  const body = (error ?? {}) as { error?: { code?: string; message?: string } }
  throw new ApiFailure(response.status, body.error?.code ?? String(response.status), body.error?.message ?? `The platform answered ${response.status}`)
}
