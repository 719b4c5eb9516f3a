import { Schema } from "effect"
import { boundedInt, NonEmptyString, oneOf } from "./common.ts"
import { Scopes } from "./scopes.ts"
import { SafeString } from "./text.ts"

// API keys and telephony webhook tokens managed over the API (scope keys:manage). Both are objects of the account, not
// of a mode: one keys:manage key lists and revokes the live and the sandbox keys alike (`mode` tells them apart), as an
// operator's console would.

const Mode = oneOf(["live", "sandbox"] as const)

export const CreateKeyRequest = Schema.Struct({
  name: NonEmptyString.check(Schema.makeFilter((s: string) => [...s].length <= 100 || "must be at most 100 characters"))
    .annotate({ description: "what the key is for, shown in the list (never secret)" }),
  scopes: Schema.Array(oneOf(Scopes)).check(Schema.isMinLength(1), Schema.isMaxLength(Scopes.length))
    .annotate({ description: "`*` grants every scope but keys:manage, privacy:write and staff:manage, which must be named" }),
  mode: Mode.annotate({ description: "live keys read and write live data, sandbox keys the sandbox" }),
  rate_limit_per_minute: Schema.optionalKey(boundedInt(1, 1_000_000).annotate({ description: "requests per minute; the platform default when absent" }))
})
export type CreateKeyRequest = typeof CreateKeyRequest.Type

export const ApiKey = Schema.Struct({
  key_id: Schema.String,
  prefix: Schema.String.annotate({ description: "the key's first characters, to recognise it" }),
  name: Schema.NullOr(Schema.String).annotate({ description: "null for keys made before keys had names" }),
  scopes: Schema.Array(Schema.String),
  mode: Schema.Literals(["live", "sandbox"]),
  rate_limit_per_minute: Schema.NullOr(Schema.Number),
  created_at: Schema.String,
  last_used_at: Schema.NullOr(Schema.String).annotate({ description: "to the minute: written at most once a minute per key" }),
  revoked: Schema.Boolean,
  revoked_at: Schema.NullOr(Schema.String)
})
export type ApiKey = typeof ApiKey.Type

export const KeyCreated = Schema.Struct({
  ...ApiKey.fields,
  key: Schema.String.annotate({ description: "the secret, shown this once: only its hash is stored" })
})

/** A telephony provider's name as the CTI webhook path takes it (`/api/webhooks/cti/{provider}`). */
export const isProviderName = (s: string) => /^[a-z0-9][a-z0-9_-]{0,49}$/u.test(s)

export const CreateIntegrationRequest = Schema.Struct({
  provider: SafeString.check(Schema.makeFilter((s: string) =>
    isProviderName(s) || "must be lowercase letters, digits, - or _ (1-50), e.g. aircall"))
})

export const TelephonyIntegration = Schema.Struct({
  integration_id: Schema.String,
  provider: Schema.String,
  created_at: Schema.String,
  revoked: Schema.Boolean,
  revoked_at: Schema.NullOr(Schema.String)
})
export type TelephonyIntegration = typeof TelephonyIntegration.Type

export const IntegrationCreated = Schema.Struct({
  ...TelephonyIntegration.fields,
  token: Schema.String.annotate({ description: "the CTI webhook's bearer token, shown this once: only its hash is stored" })
})
