import type { Sql } from "../../core/db/Database.ts"
import { encryptClientSecret, newClientId, newClientSecret } from "./secrets.ts"

export interface ClientInput {
  readonly name: string
  readonly redirect_uris: ReadonlyArray<string>
  readonly post_logout_redirect_uris?: ReadonlyArray<string> | undefined
}

const uriIssues = (uris: ReadonlyArray<string>, min: number) => {
  if (uris.length < min || uris.length > 10) return [`must list ${min} to 10 URLs`]
  const bad = uris.filter((u) => {
    try {
      const url = new URL(u)
      return !(url.protocol === "https:" || url.protocol === "http:") || url.hash !== "" || url.username !== ""
    } catch {
      return true
    }
  })
  return bad.length === 0 ? [] : [`not an absolute http(s) URL without fragment: ${bad.map((b) => JSON.stringify(b)).join(", ")}`]
}

/** What is wrong with a client request, per field (empty: nothing). */
export const clientIssues = (input: ClientInput): Record<string, Array<string>> => {
  const issues: Record<string, Array<string>> = {}
  if (input.name.trim() === "" || input.name.length > 200) issues.name = ["must be 1 to 200 characters"]
  const r = uriIssues(input.redirect_uris, 1)
  if (r.length > 0) issues.redirect_uris = r
  const p = uriIssues(input.post_logout_redirect_uris ?? [], 0)
  if (p.length > 0) issues.post_logout_redirect_uris = p
  return issues
}

/** A new client of the tenant; the secret is answered here only (stored encrypted: the provider compares it in clear). */
export const createClient = async (sql: Sql, key: Buffer, scope: { tenant_id: string; sandbox: boolean }, input: ClientInput) => {
  const client_id = newClientId()
  const client_secret = newClientSecret()
  const post = [...(input.post_logout_redirect_uris ?? [])]
  await sql`INSERT INTO oidc_clients (client_id, tenant_id, sandbox, name, secret_encrypted, redirect_uris, post_logout_redirect_uris)
    VALUES (${client_id}, ${scope.tenant_id}, ${scope.sandbox}, ${input.name.trim()}, ${encryptClientSecret(key, client_id, client_secret)},
      ${[...input.redirect_uris]}, ${post})`
  return { client_id, client_secret, name: input.name.trim(), redirect_uris: [...input.redirect_uris], post_logout_redirect_uris: post }
}
