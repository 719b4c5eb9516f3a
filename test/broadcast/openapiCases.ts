import type { Case, RouteCases } from "../http/rawRouteCases.ts"
import type { HttpResult, TestTenant } from "../support/platform.ts"

// The broadcasts routes' entries of test/http/openapi.test.ts's case table, kept here so that file only spreads them.

export interface BroadcastCaseContext {
  readonly c: (status: number, name: string, send: () => Promise<HttpResult>) => Case
  /** A request with the tenant's live key. */
  readonly as: (method: string, path: string, body?: unknown) => Promise<HttpResult>
  readonly call: (method: string, path: string, options?: { key?: string; raw?: string; headers?: Record<string, string>; body?: unknown }) => Promise<HttpResult>
  readonly keyCases: (method: string, path: string, body?: unknown) => Array<Case>
  readonly tenant: () => TestTenant
  /** Configures the tenant's email channel (no SMTP server: sends stay queued). */
  readonly emailChannel: () => Promise<unknown>
}

const NO_SUCH_ID = "00000000-0000-4000-8000-000000000000"
const NO_BODY_422 = "no body to hold a broadcast: 422 is the group's answer to a body that does not decode"
const ACTOR = {
  500: "a dead-lettered actor call: needs a poisoned actor, which the actor runtime tests cover",
  503: "an action not confirmed in time: needs NATS or the worker away, which the chaos tests cover"
} as const

/** A broadcast to nobody (a tag no contact has): it can be sent, and is sent at once. */
const body = (extra: Record<string, unknown> = {}) => ({
  name: "OpenAPI broadcast", channel: "email", category: "marketing",
  audience: { definition: { version: 1, match: { field: "contact.tags", op: "contains_any", value: ["openapi-nobody"] } } },
  content: { subject: "Hello {{contact_first_name}}", text: "Spring offer" },
  ...extra
})

export const broadcastRoutes = (x: BroadcastCaseContext): Record<string, RouteCases> => {
  const { c, as } = x
  const draft = async (extra: Record<string, unknown> = {}) => (await as("POST", "/api/v1/broadcasts", body(extra))).body.data.broadcast_id as string
  const sending = async () => {
    await x.emailChannel()
    const id = await draft()
    await as("POST", `/api/v1/broadcasts/${id}/send`)
    return id
  }
  /** Sending to every contact with a phone at one a minute: still sending when the next request comes. */
  const slow = async () => {
    await x.emailChannel()
    const id = await draft({
      audience: { definition: { version: 1, match: { field: "contact.has_phone", op: "eq", value: true } } }, rate_limit_per_minute: 1
    })
    await as("POST", `/api/v1/broadcasts/${id}/send`)
    return id
  }
  const action = (name: string, ok: () => Promise<HttpResult>, extra: Array<Case> = []): RouteCases => ({
    cases: [
      c(200, `a ${name}`, ok),
      c(404, "an unknown id", () => as("POST", `/api/v1/broadcasts/${NO_SUCH_ID}/${name}`)),
      ...extra,
      ...x.keyCases("POST", `/api/v1/broadcasts/${NO_SUCH_ID}/${name}`)
    ],
    notCaused: Object.assign(
      { 400: "the route reads no body and its id is any safe string", ...ACTOR } as Record<number, string>,
      extra.some((e) => e.status === 422) ? {} : { 422: NO_BODY_422 }
    )
  })
  return {
    "POST /api/v1/broadcasts": {
      cases: [
        c(201, "a draft", () => as("POST", "/api/v1/broadcasts", body())),
        c(400, "a body that is not JSON", () => x.call("POST", "/api/v1/broadcasts", { key: x.tenant().live_key, raw: "{" })),
        c(422, "an unknown merge tag", () => as("POST", "/api/v1/broadcasts", body({ content: { subject: "{{nope}}", text: "x" } }))),
        ...x.keyCases("POST", "/api/v1/broadcasts", body())
      ]
    },
    "GET /api/v1/broadcasts": {
      cases: [
        c(200, "the broadcasts", () => as("GET", "/api/v1/broadcasts?limit=2")),
        c(400, "a limit out of range", () => as("GET", "/api/v1/broadcasts?limit=0")),
        ...x.keyCases("GET", "/api/v1/broadcasts")
      ],
      notCaused: { 422: NO_BODY_422 }
    },
    "GET /api/v1/broadcasts/{id}": {
      cases: [
        c(200, "a broadcast", async () => as("GET", `/api/v1/broadcasts/${await draft()}`)),
        c(400, "NUL in the id (the text policy)", () => as("GET", "/api/v1/broadcasts/%00")),
        c(404, "an unknown id", () => as("GET", `/api/v1/broadcasts/${NO_SUCH_ID}`)),
        ...x.keyCases("GET", `/api/v1/broadcasts/${NO_SUCH_ID}`)
      ],
      notCaused: { 422: NO_BODY_422 }
    },
    "PATCH /api/v1/broadcasts/{id}": {
      cases: [
        c(200, "a renamed draft", async () => as("PATCH", `/api/v1/broadcasts/${await draft()}`, { name: "Renamed" })),
        c(400, "a body that is not JSON", () => x.call("PATCH", `/api/v1/broadcasts/${NO_SUCH_ID}`, { key: x.tenant().live_key, raw: "{" })),
        c(404, "an unknown id", () => as("PATCH", `/api/v1/broadcasts/${NO_SUCH_ID}`, { name: "x" })),
        c(409, "a broadcast past draft", async () => as("PATCH", `/api/v1/broadcasts/${await sending()}`, { name: "x" })),
        c(412, "If-Match naming another version", async () =>
          x.call("PATCH", `/api/v1/broadcasts/${await draft()}`, { key: x.tenant().live_key, body: { name: "x" }, headers: { "if-match": "\"v9\"" } })),
        c(422, "a deadline before the send time", async () => as("PATCH", `/api/v1/broadcasts/${await draft()}`, {
          schedule: { send_at: "2030-01-02T10:00:00Z" }, send_deadline: "2030-01-01T10:00:00Z"
        })),
        ...x.keyCases("PATCH", `/api/v1/broadcasts/${NO_SUCH_ID}`, { name: "x" })
      ]
    },
    "POST /api/v1/broadcasts/{id}/schedule": action("schedule", async () => {
      await x.emailChannel()
      return as("POST", `/api/v1/broadcasts/${await draft({ schedule: { send_at: "2030-01-01T10:00:00Z" } })}/schedule`)
    }, [
      c(409, "a broadcast past draft", async () => as("POST", `/api/v1/broadcasts/${await sending()}/schedule`)),
      c(422, "no schedule.send_at", async () => {
        await x.emailChannel()
        return as("POST", `/api/v1/broadcasts/${await draft()}/schedule`)
      })
    ]),
    "POST /api/v1/broadcasts/{id}/send": action("send", async () => {
      await x.emailChannel()
      return as("POST", `/api/v1/broadcasts/${await draft()}/send`)
    }, [
      c(409, "a cancelled broadcast", async () => {
        const id = await draft()
        await as("POST", `/api/v1/broadcasts/${id}/cancel`)
        return as("POST", `/api/v1/broadcasts/${id}/send`)
      }),
      c(422, "past its send_deadline", async () => {
        await x.emailChannel()
        return as("POST", `/api/v1/broadcasts/${await draft({ send_deadline: "2020-01-01T00:00:00Z" })}/send`)
      })
    ]),
    "POST /api/v1/broadcasts/{id}/pause": action("pause", async () => as("POST", `/api/v1/broadcasts/${await slow()}/pause`), [
      c(409, "a draft", async () => as("POST", `/api/v1/broadcasts/${await draft()}/pause`))
    ]),
    "POST /api/v1/broadcasts/{id}/resume": action("resume", async () => {
      const id = await slow()
      await as("POST", `/api/v1/broadcasts/${id}/pause`)
      return as("POST", `/api/v1/broadcasts/${id}/resume`)
    }, [c(409, "a draft", async () => as("POST", `/api/v1/broadcasts/${await draft()}/resume`))]),
    "POST /api/v1/broadcasts/{id}/cancel": action("cancel", async () => as("POST", `/api/v1/broadcasts/${await draft()}/cancel`), [
      c(409, "a sent broadcast", async () => {
        const id = await sending()
        for (let i = 0; i < 100 && (await as("GET", `/api/v1/broadcasts/${id}`)).body.data.status !== "sent"; i++) await new Promise((r) => setTimeout(r, 100))
        return as("POST", `/api/v1/broadcasts/${id}/cancel`)
      })
    ]),
    "POST /api/v1/broadcasts/{id}/test": {
      cases: [
        c(202, "a test send", async () => {
          await x.emailChannel()
          const guest = await as("POST", "/api/v1/guests", { phone: `+3461${String(Date.now()).slice(-7)}`, first_name: "Open", last_name: "Api" })
          return as("POST", `/api/v1/broadcasts/${await draft()}/test`, { to: guest.body.data.contact_id })
        }),
        c(400, "a body that is not JSON", () => x.call("POST", `/api/v1/broadcasts/${NO_SUCH_ID}/test`, { key: x.tenant().live_key, raw: "{" })),
        c(404, "an unknown id", () => as("POST", `/api/v1/broadcasts/${NO_SUCH_ID}/test`, { to: NO_SUCH_ID })),
        c(422, "an unknown contact", async () => as("POST", `/api/v1/broadcasts/${await draft()}/test`, { to: NO_SUCH_ID })),
        ...x.keyCases("POST", `/api/v1/broadcasts/${NO_SUCH_ID}/test`, { to: NO_SUCH_ID })
      ],
      notCaused: ACTOR
    },
    "GET /api/v1/broadcast-settings": {
      cases: [c(200, "the cap", () => as("GET", "/api/v1/broadcast-settings")), ...x.keyCases("GET", "/api/v1/broadcast-settings")],
      notCaused: { 400: "the route reads no body and no parameter", 422: NO_BODY_422 }
    },
    "PATCH /api/v1/broadcast-settings": {
      cases: [
        c(200, "the default restored", () => as("PATCH", "/api/v1/broadcast-settings", { marketing_frequency_cap_hours: null })),
        c(400, "a body that is not JSON", () => x.call("PATCH", "/api/v1/broadcast-settings", { key: x.tenant().live_key, raw: "{" })),
        c(422, "a cap past a year", () => as("PATCH", "/api/v1/broadcast-settings", { marketing_frequency_cap_hours: 9_000 })),
        ...x.keyCases("PATCH", "/api/v1/broadcast-settings", { marketing_frequency_cap_hours: null })
      ]
    },
    "GET /api/v1/broadcasts/{id}/recipients": {
      cases: [
        c(200, "the recipients", async () => as("GET", `/api/v1/broadcasts/${await draft()}/recipients`)),
        c(400, "a status that is none", async () => as("GET", `/api/v1/broadcasts/${await draft()}/recipients?status=gone`)),
        c(404, "an unknown id", () => as("GET", `/api/v1/broadcasts/${NO_SUCH_ID}/recipients`)),
        ...x.keyCases("GET", `/api/v1/broadcasts/${NO_SUCH_ID}/recipients`)
      ],
      notCaused: { 422: NO_BODY_422 }
    }
  }
}
