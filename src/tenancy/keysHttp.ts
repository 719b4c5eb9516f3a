import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Database } from "../../core/db/Database.ts"
import { Api } from "../../schemas/api.ts"
import { isUuid } from "../../schemas/common.ts"
import { NotFound } from "../../schemas/errors.ts"
import { ApiKeys } from "../auth/ApiKeys.ts"
import { ok } from "../http/answers.ts"
import { pageRequest } from "../http/paging.ts"
import { createIntegration, Integrations, listIntegrations, revokeIntegration } from "../telephony/Integrations.ts"
import { inAccount, malformedId } from "./edge.ts"
import { insertKey, listKeys, revokeKey } from "./keyStore.ts"

// API keys and telephony tokens (scope keys:manage): objects of the account, not of a mode, so a keys:manage key of
// either mode sees and manages both. keys:manage is the administrator's scope: it may grant any scope, itself included
// (a key that can revoke every other key and mint `*` keys already holds the account; a subset rule would add ceremony,
// not a boundary).

export const KeysLive = HttpApiBuilder.group(Api, "keys", (handlers) =>
  Effect.gen(function*() {
    const db = yield* Database
    const apiKeys = yield* ApiKeys
    const run = inAccount(db)
    return handlers
      .handle("create", Effect.fn("Keys.create")(function*({ payload }) {
        const created = yield* run((tx, tenantId) => insertKey(tx, tenantId, {
          scopes: [...new Set(payload.scopes)], sandbox: payload.mode === "sandbox",
          rate_limit_per_minute: payload.rate_limit_per_minute, name: payload.name
        }))
        return ok(created)
      }))
      .handle("list", Effect.fn("Keys.list")(function*({ query }) {
        const page = yield* pageRequest(query)
        return ok(yield* run((tx, tenantId) => listKeys(tx, tenantId, page)))
      }))
      .handle("revoke", Effect.fn("Keys.revoke")(function*({ params }) {
        if (!isUuid(params.key_id)) return yield* malformedId("key_id")
        const revoked = yield* run((tx, tenantId) => revokeKey(tx, params.key_id, tenantId))
        if (revoked === undefined) return yield* NotFound.of(`No API key with id ${JSON.stringify(params.key_id)} in this account`, { key_id: ["not found"] })
        yield* apiKeys.forget(revoked.key_id)
        return ok(revoked)
      }))
  }))

export const TelephonyIntegrationsLive = HttpApiBuilder.group(Api, "telephonyIntegrations", (handlers) =>
  Effect.gen(function*() {
    const db = yield* Database
    const integrations = yield* Integrations
    const run = inAccount(db)
    return handlers
      .handle("create", Effect.fn("TelephonyIntegrations.create")(function*({ payload }) {
        return ok(yield* run((tx, tenantId) => createIntegration(tx, tenantId, payload.provider)))
      }))
      .handle("list", Effect.fn("TelephonyIntegrations.list")(function*({ query }) {
        const page = yield* pageRequest(query)
        return ok(yield* run((tx, tenantId) => listIntegrations(tx, tenantId, page)))
      }))
      .handle("revoke", Effect.fn("TelephonyIntegrations.revoke")(function*({ params }) {
        if (!isUuid(params.integration_id)) return yield* malformedId("integration_id")
        const revoked = yield* run((tx, tenantId) => revokeIntegration(tx, tenantId, params.integration_id))
        if (revoked === undefined) {
          return yield* NotFound.of(`No telephony integration with id ${JSON.stringify(params.integration_id)} in this account`, { integration_id: ["not found"] })
        }
        yield* integrations.forget(revoked.integration_id)
        return ok(revoked)
      }))
  }))
