import { Effect, Layer, Redacted } from "effect"
import { Database } from "../../core/db/Database.ts"
import type { DatabaseFailure } from "../../core/db/DatabaseFailure.ts"
import { WebhookConfig } from "../../core/webhook/WebhookConfig.ts"
import { clientIssues, createClient } from "../oidc/clients.ts"
import { rotateSigningKeys } from "../oidc/keys.ts"
import type { TenancyError } from "../tenancy/Tenancy.ts"
import { need, refused, scopeOf } from "./channelFlags.ts"

export const OIDC_USAGE = `  oidc client create --tenant ID [--test] --name N --redirect-uri URI [--post-logout-redirect-uri URI]
      -> {"client_id","client_secret"} a Loyalty SSO relying party (secret shown once); URIs may be comma-separated
  oidc rotate-keys                             -> {"current_kid","next_kid","retired_kids"} the published next key starts signing`

export const OIDC_OPTIONS = {
  "redirect-uri": { type: "string" },
  "post-logout-redirect-uri": { type: "string" }
} as const

export interface OidcFlags {
  readonly tenant?: string | undefined
  readonly test?: boolean | undefined
  readonly name?: string | undefined
  readonly "redirect-uri"?: string | undefined
  readonly "post-logout-redirect-uri"?: string | undefined
}

const list = (v: string | undefined) => (v ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "")

const run = (args: ReadonlyArray<string>, flags: OidcFlags) =>
  Effect.gen(function*() {
    const { sql } = yield* Database
    const key = Redacted.value((yield* WebhookConfig).encryptionKey)
    const what = args.join(" ")
    if (what === "rotate-keys") return yield* Effect.promise(() => rotateSigningKeys(sql, key))
    if (what !== "client create") return yield* Effect.fail(refused(`unknown command: oidc ${what} (client create, rotate-keys)`))
    const scope = yield* scopeOf(flags)
    const input = { name: yield* need("name", flags.name), redirect_uris: list(flags["redirect-uri"]), post_logout_redirect_uris: list(flags["post-logout-redirect-uri"]) }
    const issues = clientIssues(input)
    const fields = Object.keys(issues)
    if (fields.length > 0) return yield* Effect.fail(refused(fields.map((f) => `--${f.replace(/_uris$/, "_uri").replaceAll("_", "-")} ${issues[f]![0]}`).join("; ")))
    const created = yield* Effect.promise(() => createClient(sql, key, scope, input))
    return { client_id: created.client_id, client_secret: created.client_secret }
  })

/** `gep oidc ...`: Loyalty SSO clients and signing keys for an operator. */
export const oidcCommand = (args: ReadonlyArray<string>, flags: OidcFlags) =>
  (run(args, flags) as Effect.Effect<unknown, TenancyError | DatabaseFailure, Database | WebhookConfig>).pipe(
    Effect.provide(Layer.orDie(WebhookConfig.layer))
  )
