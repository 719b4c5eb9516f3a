import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { randomUUID } from "node:crypto"
import { Api, CurrentPrincipal, type Principal } from "../../schemas/api.ts"
import { NotFound, Unprocessable, ValidationFailed } from "../../schemas/errors.ts"
import type { DialRequest } from "../../schemas/telephony.ts"
import { outboxSubject } from "../../streams/subjects.ts"
import { encode } from "../../streams/envelope.ts"
import { AppConfig } from "../../core/config/AppConfig.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import { Database, jsonb, type Sql, type Tx, withTenant } from "../../core/db/Database.ts"
import { normalisePhone } from "../../core/normalise/index.ts"
import { contactCalls } from "./reads.ts"
import { readCall } from "./callDetail.ts"
import { ok } from "../http/answers.ts"
import { pageRequest } from "../http/paging.ts"
import { isUuid } from "../../schemas/common.ts"


const findContact = async (sql: Sql | Tx, p: TenantScope, id: string) => {
  if (!isUuid(id)) return undefined
  const [c] = await sql`SELECT id, phone FROM contacts WHERE id = ${id} AND tenant_id = ${p.tenant_id} AND sandbox = ${p.sandbox}`
  return c as { id: string; phone: string | null } | undefined
}

const contactNotFound = (id: string) => NotFound.of(`No contact with id ${JSON.stringify(id)}`, { id: ["not found"] })

/**
 * Click-to-call: the request is recorded and a `call.dial_requested` command is written to the outbox in the same
 * transaction; the provider adapter consumes it from the stream.
 */
const recordDial = async (sql: Sql, namespace: string, p: Principal, contactId: string, to: string, provider: string, body: DialRequest) => {
  const id = randomUUID()
  await sql.begin(async (tx) => {
    await tx`INSERT INTO call_dial_requests (id, tenant_id, sandbox, contact_id, to_number, provider, agent, requested_by)
      VALUES (${id}, ${p.tenant_id}, ${p.sandbox}, ${contactId}, ${to}, ${provider}, ${jsonb(tx, body.agent)}, ${p.key_id})`
    const payload = {
      tenant_id: p.tenant_id, sandbox: p.sandbox, occurred_at: new Date().toISOString(), event_type: "call.dial_requested",
      data: { dial_request_id: id, contact_id: contactId, to, provider, agent: body.agent ?? null }
    }
    await tx`INSERT INTO outbox (id, tenant_id, subject, payload)
      VALUES (${id}, ${p.tenant_id}, ${outboxSubject(namespace, "cmd", "call.dial_requested")}, ${Buffer.from(encode(payload))})`
  })
  return id
}

export const ContactCallsLive = HttpApiBuilder.group(Api, "contactCalls", (handlers) =>
  Effect.gen(function*() {
    const db = yield* Database
    const config = yield* AppConfig
    return handlers
      .handle("calls", ({ params, query }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          const request = yield* pageRequest(query)
          const page = yield* db.query((sql) => withTenant(sql, principal.tenant_id, async (tx) => {
            const contact = await findContact(tx, principal, params.id)
            return contact ? contactCalls(tx, contact.id, request) : undefined
          }))
          if (page === undefined) return yield* contactNotFound(params.id)
          return ok(page)
        }))
      .handle("call", ({ params }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          const call = yield* db.query((sql) => withTenant(sql, principal.tenant_id, (tx) => readCall(tx, principal, params.call_record_id)))
          if (call === undefined) {
            return yield* NotFound.of(`No call record with call_record_id ${JSON.stringify(params.call_record_id)}`, { call_record_id: ["not found"] })
          }
          return ok(call)
        }))
      .handle("dial", ({ params, payload }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          const contact = yield* db.query((sql) => findContact(sql, principal, params.id))
          if (!contact) return yield* contactNotFound(params.id)
          let to = contact.phone
          if (payload.to !== undefined) {
            const n = normalisePhone(payload.to)
            if (!n.ok) return yield* ValidationFailed.of("Invalid request: to is not a valid international number", { to: ["must be a phone number in E.164"] })
            to = n.e164
          }
          if (to === null) return yield* Unprocessable.of("NO_PHONE", "The contact has no phone number; send `to`", { to: ["is required: the contact has no phone"] })
          const integrations = yield* db.query((sql) => sql`SELECT provider FROM cti_integrations WHERE tenant_id = ${principal.tenant_id} AND revoked_at IS NULL`)
          const providers = [...new Set(integrations.map((r) => r.provider as string))]
          const provider = payload.provider ?? (providers.length === 1 ? providers[0] : undefined)
          if (provider === undefined || !providers.includes(provider)) {
            return yield* Unprocessable.of("NO_TELEPHONY_INTEGRATION", providers.length === 0
              ? "This account has no telephony integration" : "Name the provider: this account has several (or not this one)", { provider: [`one of: ${providers.join(", ") || "(none)"}`] })
          }
          const id = yield* db.query((sql) => recordDial(sql, config.namespace, principal, contact.id, to, provider, payload))
          return ok({ dial_request_id: id, status: "requested" as const, contact_id: contact.id, to, provider })
        }))
  }))
