/**
 * The scopes an API key may hold: the one list (the contract's enum of `POST /api/v1/keys`, the CLI's `--scopes`
 * check and `hasScope` in src/auth/keys.ts all read it).
 */
export const Scopes = [
  "guests:read", "guests:write", "events:write", "bookings:read", "bookings:write", "reservations:write",
  "conversions:write", "custom_fields:write", "webhooks:manage", "cdp:read", "cdp:write", "b2b:read", "b2b:write",
  "surveys:write", "channels:read", "channels:write", "journeys:read", "journeys:write", "website_sources:manage",
  "hotels:manage", "keys:manage", "segments:write", "broadcasts:write", "privacy:read", "privacy:write", "staff:manage", "audit:read", "*"
] as const
export type Scope = typeof Scopes[number]

/**
 * Scopes `*` does not grant: they must be named in the key's scopes. `keys:manage` mints and revokes credentials, so
 * the all-scope keys every tenant starts with (and any key handed to an integration as `*`) cannot create keys.
 * `privacy:write` erases guests for good: a PMS feed's `*` key must not be able to, only a key minted for it.
 * `staff:manage` adds staff members, who sign in with emailed codes: it mints credentials as `keys:manage` does.
 */
export const ExplicitScopes: ReadonlyArray<Scope> = ["keys:manage", "privacy:write", "staff:manage"]
