import { Effect, Redacted } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Database } from "../../core/db/Database.ts"
import { WebhookConfig } from "../../core/webhook/WebhookConfig.ts"
import { Api } from "../../schemas/api.ts"
import { ValidationFailed } from "../../schemas/errors.ts"
import { callerScope } from "../http/handlerContext.ts"
import { summarise } from "../http/issues.ts"
import { clientIssues, createClient } from "./clients.ts"

/** `POST /api/v1/oidc/clients` (a core key with scope `*`): a relying party of the key's account and mode. */
export const OidcClientsLive = HttpApiBuilder.group(Api, "oidcClients", (handlers) =>
  Effect.gen(function*() {
    const db = yield* Database
    const key = Redacted.value((yield* WebhookConfig).encryptionKey)
    return handlers.handle("create", Effect.fn("OidcClients.create")(function*({ payload }) {
      const issues = clientIssues(payload)
      if (Object.keys(issues).length > 0) return yield* ValidationFailed.of(summarise(issues), issues)
      const scope = yield* callerScope
      return { success: true as const, data: yield* db.query((sql) => createClient(sql, key, scope, payload)) }
    }))
  }))
