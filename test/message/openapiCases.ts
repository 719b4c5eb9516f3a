import type { Case, RouteCases } from "../http/rawRouteCases.ts"
import type { HttpResult } from "../support/platform.ts"

// The tenant-wide messages list's entry of test/http/openapi.test.ts's case table, kept here so that file only
// spreads it. The messages come from the table's own send (a queued email: no SMTP server there).

export interface MessageCaseContext {
  readonly c: (status: number, name: string, send: () => Promise<HttpResult>) => Case
  /** A request with the tenant's live key. */
  readonly as: (method: string, path: string, body?: unknown) => Promise<HttpResult>
  readonly keyCases: (method: string, path: string, body?: unknown) => Array<Case>
  /** A contact with one queued utility email; its id. */
  readonly contactWithMessage: () => Promise<string>
}

export const messageRoutes = (x: MessageCaseContext): Record<string, RouteCases> => {
  const { c, as } = x
  return {
    "GET /api/v1/messages": {
      cases: [
        c(200, "the account's messages, one contact's", async () => as("GET", `/api/v1/messages?contact_id=${await x.contactWithMessage()}&channel=email&limit=5`)),
        c(200, "a window of days with no messages", () => as("GET", "/api/v1/messages?from=2020-01-01&to=2020-01-02")),
        c(400, "a channel that is none", () => as("GET", "/api/v1/messages?channel=sms")),
        c(400, "a journey_id that is no UUID", () => as("GET", "/api/v1/messages?journey_id=pre-arrival")),
        c(400, "a cursor this API never returned", () => as("GET", "/api/v1/messages?cursor=garbage")),
        ...x.keyCases("GET", "/api/v1/messages")
      ]
    }
  }
}
