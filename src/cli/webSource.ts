import { Config, Effect, Layer, Redacted } from "effect"
import { readFileSync } from "node:fs"
import { Database } from "../../core/db/Database.ts"
import type { DatabaseFailure } from "../../core/db/DatabaseFailure.ts"
import { Conflict, NotFound, ValidationFailed } from "../../schemas/errors.ts"
import type { TenancyError } from "../tenancy/Tenancy.ts"
import { WebhookConfig } from "../../core/webhook/WebhookConfig.ts"
import { CreateSourceRequest, PatchSourceRequest } from "../../schemas/websiteSourceApi.ts"
import * as Sources from "../website/SourceCommands.ts"
import { decode, need, refused, scopeOf } from "./channelFlags.ts"

export const WEB_SOURCE_USAGE = `  web-source create --tenant ID [--test] --name N --origins https://a.com,https://b.com [--events a.b,c.d]
      [--signing] [--rate N] [--consent honour|ignore] [--mapping FILE.json]   -> as POST /api/v1/website-sources (keys shown once)
  web-source list|show|pause|resume|delete --tenant ID [--test] [--id S]   -> the source(s), as the API shows them
  web-source add-key --tenant ID --id S --kind server|browser|webhook   -> {"key_id","kind","key",...} (at most two live per kind)
  web-source revoke-key --tenant ID --id S --key-id K   |   rotate-secret --tenant ID --id S   -> the new signing secret
  web-source deliveries --tenant ID --id S   |   events --tenant ID --id S   |   declare --tenant ID --id S --event NAME
  web-source feature on|off --tenant ID        -> switch website events for the account (off: 403 feature_disabled)`

/** The flags of the web-source commands (beside main.ts's own: tenant, test, name, key-id, and the channel's rate). */
export const WEB_SOURCE_OPTIONS = {
  origins: { type: "string" },
  events: { type: "string" },
  signing: { type: "boolean", default: false },
  consent: { type: "string" },
  mapping: { type: "string" },
  kind: { type: "string" },
  event: { type: "string" }
} as const

export interface WebSourceFlags {
  readonly tenant?: string | undefined
  readonly test?: boolean | undefined
  readonly id?: string | undefined
  readonly name?: string | undefined
  readonly "key-id"?: string | undefined
  readonly rate?: string | undefined
  readonly origins?: string | undefined
  readonly events?: string | undefined
  readonly signing?: boolean | undefined
  readonly consent?: string | undefined
  readonly mapping?: string | undefined
  readonly kind?: string | undefined
  readonly event?: string | undefined
}

const list = (v: string | undefined) => (v === undefined ? undefined : v.split(",").map((s) => s.trim()).filter((s) => s !== ""))

/** An API refusal (400, 404, 409) as the CLI's error: its message with the fields it names. */
const asRefusal = (e: ApiRefusal) => {
  const fields = Object.keys(e.error.details)
  return refused(fields.length > 0 ? `${e.error.message} (${fields.join(", ")})` : e.error.message)
}

const run = (action: string | undefined, rest: ReadonlyArray<string>, flags: WebSourceFlags) =>
  Effect.gen(function*() {
    const { sql } = yield* Database
    const webhook = yield* WebhookConfig
    const baseUrl = yield* Config.String("GEP_PUBLIC_BASE_URL").pipe(Config.withDefault(""))
    const ctx: Sources.SourceContext = { sql, key: Redacted.value(webhook.encryptionKey), baseUrl }
    const scope = yield* scopeOf(flags)
    const id = () => need("id", flags.id)
    switch (action) {
      case "create": {
        const body = yield* decode(CreateSourceRequest, {
          name: flags.name, allowed_origins: list(flags.origins) ?? [],
          ...(flags.events === undefined ? {} : { allowed_events: list(flags.events) }),
          ...(flags.signing ? { signing: true } : {}),
          ...(flags.rate === undefined ? {} : { rate_limit_per_minute: Number(flags.rate) }),
          ...(flags.consent === undefined ? {} : { consent_mode: flags.consent }),
          ...(flags.mapping === undefined ? {} : { mapping: JSON.parse(readFileSync(flags.mapping, "utf8")) })
        })
        return yield* Sources.createSource(ctx, scope, body)
      }
      case "list":
        return yield* Sources.listSources(ctx, scope)
      case "show":
        return yield* Sources.getSource(ctx, scope, yield* id())
      case "pause":
      case "resume":
        return yield* Sources.updateSource(ctx, scope, yield* id(), yield* decode(PatchSourceRequest, { enabled: action === "resume" }))
      case "delete":
        return yield* Sources.removeSource(ctx, scope, yield* id())
      case "add-key": {
        const kind = flags.kind
        if (kind !== "server" && kind !== "browser" && kind !== "webhook") return yield* Effect.fail(refused("--kind must be server, browser or webhook"))
        return yield* Sources.addKey(ctx, scope, yield* id(), kind)
      }
      case "revoke-key":
        return yield* Sources.revokeKey(ctx, scope, yield* id(), yield* need("key-id", flags["key-id"]))
      case "rotate-secret":
        return yield* Sources.rotateSecret(ctx, scope, yield* id())
      case "deliveries":
        return yield* Sources.deliveries(ctx, scope, yield* id(), { limit: "100" })
      case "events":
        return yield* Sources.catalogue(ctx, scope, yield* id())
      case "declare":
        return yield* Sources.declare(ctx, scope, yield* id(), yield* need("event", flags.event), null)
      case "feature": {
        const on = rest[0]
        if (on !== "on" && on !== "off") return yield* Effect.fail(refused("web-source feature takes on or off"))
        yield* Effect.promise(() => sql`UPDATE tenants SET website_events_enabled = ${on === "on"} WHERE id = ${scope.tenant_id}`)
        return { tenant_id: scope.tenant_id, website_events_enabled: on === "on" }
      }
      default:
        return yield* Effect.fail(refused(`unknown command: web-source ${action ?? ""} (create, list, show, pause, resume, delete, add-key, revoke-key, rotate-secret, deliveries, events, declare, feature)`))
    }
  })

/** `gep web-source ...`: the website sources API for an operator, with its rules and refusals. */
export const webSourceCommand = (args: ReadonlyArray<string>, flags: WebSourceFlags) =>
  (run(args[0], args.slice(1), flags) as Effect.Effect<unknown, TenancyError | DatabaseFailure | ApiRefusal, Database | WebhookConfig>).pipe(
    Effect.catchIf(isApiRefusal, (e) => Effect.fail(asRefusal(e))),
    Effect.provide(Layer.orDie(WebhookConfig.layer))
  )

type ApiRefusal = ValidationFailed | NotFound | Conflict
const isApiRefusal = (e: unknown): e is ApiRefusal =>
  e instanceof ValidationFailed || e instanceof NotFound || e instanceof Conflict
