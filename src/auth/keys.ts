import { credentialHash, randomCredential } from "../../core/credentials.ts"

export const Scopes = [
  "guests:read", "guests:write", "events:write", "bookings:read", "bookings:write", "reservations:write",
  "conversions:write", "custom_fields:write", "webhooks:manage", "cdp:read", "cdp:write", "b2b:read", "b2b:write",
  "surveys:write", "channels:read", "channels:write", "journeys:read", "journeys:write", "website_sources:manage", "*"
] as const
export type Scope = typeof Scopes[number]

export const generateKey = (sandbox: boolean): string => randomCredential(sandbox ? "svckr_test_" : "svckr_")

export const hashKey = credentialHash

export const isSandboxKey = (key: string) => key.startsWith("svckr_test_")
export const looksLikeKey = (key: string) => /^svckr_(test_)?[0-9A-Za-z]{20,100}$/.test(key)

/** What an operator may see of a key: its prefix and first characters. */
export const displayPrefix = (key: string) => key.slice(0, key.startsWith("svckr_test_") ? 15 : 10)

export const hasScope = (granted: ReadonlyArray<string>, required: string) =>
  granted.includes("*") || granted.includes(required)
