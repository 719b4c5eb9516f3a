import { Effect, Schema } from "effect"
import { readFileSync } from "node:fs"
import { Database } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { ChannelRefusal } from "../channel/ChannelSettings.ts"
import { issueDetails } from "../http/issues.ts"
import { TenancyError } from "../tenancy/Tenancy.ts"

// The flags of `gep channel ...` and how they become channel API requests: the same schemas decode them, and a
// refusal names the flag the operator typed rather than the API's field.

/** The flags of the channel commands (beside main.ts's own: tenant, test, name). */
export const CHANNEL_OPTIONS = {
  from: { type: "string" },
  "reply-to": { type: "string" },
  rate: { type: "string" },
  hotel: { type: "string" },
  clear: { type: "boolean", default: false },
  "phone-number-id": { type: "string" },
  "access-token": { type: "string" },
  "app-secret": { type: "string" },
  "verify-token": { type: "string" },
  language: { type: "string" },
  category: { type: "string" },
  "body-parameters": { type: "string" }
} as const

export interface ChannelFlags {
  readonly tenant?: string | undefined
  readonly test?: boolean | undefined
  readonly name?: string | undefined
  readonly from?: string | undefined
  readonly "reply-to"?: string | undefined
  readonly rate?: string | undefined
  readonly hotel?: string | undefined
  readonly clear?: boolean | undefined
  readonly "phone-number-id"?: string | undefined
  readonly "access-token"?: string | undefined
  readonly "app-secret"?: string | undefined
  readonly "verify-token"?: string | undefined
  readonly language?: string | undefined
  readonly category?: string | undefined
  readonly "body-parameters"?: string | undefined
}

/** The request field each flag fills, so a refusal names the flag the operator typed. */
const FLAG_OF: Record<string, string> = {
  from_address: "--from", from_name: "--name", reply_to: "--reply-to", send_rate_per_minute: "--rate",
  phone_number_id: "--phone-number-id", access_token: "--access-token", app_secret: "--app-secret",
  verify_token: "--verify-token", name: "--name", language: "--language", category: "--category",
  body_parameters: "--body-parameters", hotel: "--hotel"
}

export const refused = (message: string) => new TenancyError({ message })

export const decode = <S extends Schema.Top>(schema: S, input: unknown) =>
  Schema.decodeUnknownEffect(schema)(input, { errors: "all", onExcessProperty: "error" }).pipe(
    Effect.mapError((e) => refused(Object.entries(issueDetails(e.issue)).map(([field, messages]) => `${FLAG_OF[field] ?? field} ${messages.join("; ")}`).join("; ")))
  ) as Effect.Effect<S["Type"], TenancyError, S["DecodingServices"]>

/** An API refusal as the CLI's error: its message, the fields it names given as the flags. */
export const fromRefusal = (e: ChannelRefusal) => {
  const fields = Object.keys(e.error.details).map((f) => FLAG_OF[f] ?? f).filter((f) => f !== "channel")
  return refused(fields.length > 0 && !fields.every((f) => e.error.message.includes(f)) ? `${e.error.message} (${fields.join(", ")})` : e.error.message)
}

/** A flag as a request field: not given → absent (the stored value is kept); `""` → null (cleared); else its value. */
export const clearable = (key: string, v: string | undefined, map: (s: string) => unknown = (s) => s) =>
  v === undefined ? {} : { [key]: v === "" ? null : map(v) }
export const number = (v: string) => (/^-?\d+$/.test(v) ? Number(v) : v)

const readStdin = () => readFileSync(0, "utf8").trim()

/** Secrets given as `-` come from stdin (a command line shows in `ps` and shell history); at most one can. */
export const secretsFrom = (flags: ChannelFlags) =>
  Effect.gen(function*() {
    const names = (["access-token", "app-secret", "verify-token"] as const).filter((f) => flags[f] === "-")
    if (names.length > 1) return yield* Effect.fail(refused(`only one of ${names.map((n) => `--${n}`).join(", ")} can be read from stdin`))
    const stdin = names.length === 1 ? yield* Effect.sync(readStdin) : undefined
    const value = (f: "access-token" | "app-secret" | "verify-token") => (flags[f] === "-" ? stdin : flags[f])
    return { access_token: value("access-token"), app_secret: value("app-secret"), verify_token: value("verify-token") }
  })

export const need = (flag: string, value: string | undefined) =>
  value ? Effect.succeed(value) : Effect.fail(refused(`missing --${flag}`))

export const scopeOf = (flags: ChannelFlags) =>
  Effect.gen(function*() {
    const tenant = yield* need("tenant", flags.tenant)
    const { attempt } = yield* Database
    const known = yield* attempt((sql) => sql`SELECT 1 FROM tenants WHERE id::text = ${tenant}`)
    if (known.length === 0) return yield* Effect.fail(refused(`no tenant with id ${tenant}`))
    return { tenant_id: tenant, sandbox: flags.test ?? false } satisfies TenantScope
  })

export const optional = <K extends string, V>(key: K, v: V | undefined): { [P in K]?: V } => (v === undefined ? {} : { [key]: v } as { [P in K]: V })
