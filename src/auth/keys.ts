import { credentialHash, randomCredential } from "../../core/credentials.ts"
import { ExplicitScopes } from "../../schemas/scopes.ts"

export { ExplicitScopes, type Scope, Scopes } from "../../schemas/scopes.ts"

export const generateKey = (sandbox: boolean): string => randomCredential(sandbox ? "svckr_test_" : "svckr_")

export const hashKey = credentialHash

export const isSandboxKey = (key: string) => key.startsWith("svckr_test_")
export const looksLikeKey = (key: string) => /^svckr_(test_)?[0-9A-Za-z]{20,100}$/.test(key)

/** What an operator may see of a key: its prefix and first characters. */
export const displayPrefix = (key: string) => key.slice(0, key.startsWith("svckr_test_") ? 15 : 10)

/**
 * Whether a key's scopes grant `required`: named, or covered by `*` unless it is one of the `ExplicitScopes`
 * (`keys:manage`), which only a key naming it holds. The one place a scope is checked.
 */
export const hasScope = (granted: ReadonlyArray<string>, required: string) =>
  granted.includes(required) || (granted.includes("*") && !(ExplicitScopes as ReadonlyArray<string>).includes(required))
