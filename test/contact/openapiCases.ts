import type { Case, RouteCases } from "../http/rawRouteCases.ts"
import { reservation, uniqueId } from "../support/fixtures.ts"
import type { HttpResult, TestTenant } from "../support/platform.ts"

// The contacts read routes' entries of test/http/openapi.test.ts's case table, kept here so that file only spreads them.

export interface ContactCaseContext {
  readonly c: (status: number, name: string, send: () => Promise<HttpResult>) => Case
  /** A request with the tenant's live key. */
  readonly as: (method: string, path: string, body?: unknown) => Promise<HttpResult>
  readonly keyCases: (method: string, path: string, body?: unknown) => Array<Case>
  readonly tenant: () => TestTenant
}

const NO_SUCH_ID = "00000000-0000-4000-8000-000000000000"

export const contactRoutes = (x: ContactCaseContext): Record<string, RouteCases> => {
  const { c, as } = x
  /** A contact with a reservation, a tag, consent and a hotel: every part of the profile and a few timeline kinds filled. */
  const contact = async () => {
    const email = `${uniqueId("oa").toLowerCase()}@gmail.com`
    const res = await as("POST", "/api/v1/reservations", reservation({ hotel_code: x.tenant().hotel_code }, {
      guests: [{ first_name: "Open", last_name: "Api", email, is_holder: true, email_consent: true }]
    }))
    if (res.status >= 300) throw new Error(`fixture reservation failed: ${res.status} ${JSON.stringify(res.body)}`)
    return { id: res.body.data.contacts[0].contact_id as string, email }
  }
  return {
    "GET /api/v1/contacts/{contact_id}": {
      cases: [
        c(200, "a contact's profile", async () => as("GET", `/api/v1/contacts/${(await contact()).id}`)),
        c(400, "a contact_id that is no UUID", () => as("GET", "/api/v1/contacts/not-a-uuid")),
        c(404, "an unknown contact_id", () => as("GET", `/api/v1/contacts/${NO_SUCH_ID}`)),
        ...x.keyCases("GET", `/api/v1/contacts/${NO_SUCH_ID}`)
      ]
    },
    "GET /api/v1/contacts": {
      cases: [
        c(200, "an email-only contact found by email", async () => as("GET", `/api/v1/contacts?email=${encodeURIComponent((await contact()).email)}`)),
        c(200, "a page of the account's contacts", () => as("GET", "/api/v1/contacts?limit=2")),
        c(200, "contacts found by the start of their names, accents ignored", async () => {
          await contact()
          return as("GET", "/api/v1/contacts?name=OPEN%20api")
        }),
        c(400, "a name of one letter", () => as("GET", "/api/v1/contacts?name=a")),
        c(400, "a phone that is no number", () => as("GET", "/api/v1/contacts?phone=12")),
        c(400, "an updated_since without an offset", () => as("GET", "/api/v1/contacts?updated_since=2026-11-01T10:00:00")),
        ...x.keyCases("GET", "/api/v1/contacts")
      ]
    },
    "GET /api/v1/contacts/{contact_id}/timeline": {
      cases: [
        c(200, "a contact's timeline", async () => as("GET", `/api/v1/contacts/${(await contact()).id}/timeline`)),
        c(400, "a cursor this timeline did not issue", () => as("GET", `/api/v1/contacts/${NO_SUCH_ID}/timeline?cursor=nope`)),
        c(404, "an unknown contact_id", () => as("GET", `/api/v1/contacts/${NO_SUCH_ID}/timeline`)),
        ...x.keyCases("GET", `/api/v1/contacts/${NO_SUCH_ID}/timeline`)
      ]
    }
  }
}
