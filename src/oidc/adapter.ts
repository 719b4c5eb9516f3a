import type { Adapter, AdapterPayload } from "oidc-provider"
import type { Sql } from "../../core/db/Database.ts"
import { decryptClientSecret } from "./secrets.ts"

// oidc-provider's storage in PostgreSQL (interface of its example adapter). Every model but Client lives in
// oidc_models; expired rows are never answered (the sweeper deletes them later). Clients are read from oidc_clients,
// which only `gep oidc client create` and the clients API write: the provider cannot change them.

/** Model instances, keyed by (model, id). */
export const modelAdapter = (sql: Sql, model: string): Adapter => ({
  async upsert(id, payload, expiresIn) {
    const expires = new Date(Date.now() + (expiresIn ?? 14 * 86400) * 1000)
    await sql`INSERT INTO oidc_models (model, id, payload, expires_at) VALUES (${model}, ${id}, ${sql.json(payload as never)}, ${expires})
      ON CONFLICT (model, id) DO UPDATE SET payload = excluded.payload, expires_at = excluded.expires_at`
  },
  async find(id) {
    const [row] = await sql`SELECT payload, consumed_at FROM oidc_models WHERE model = ${model} AND id = ${id} AND expires_at > now()`
    if (row === undefined) return undefined
    return { ...(row.payload as AdapterPayload), ...(row.consumed_at === null ? {} : { consumed: Math.floor((row.consumed_at as Date).getTime() / 1000) }) }
  },
  async findByUid(uid) {
    const [row] = await sql`SELECT payload, consumed_at FROM oidc_models WHERE model = ${model} AND uid = ${uid} AND expires_at > now()`
    return row === undefined ? undefined : row.payload as AdapterPayload
  },
  async findByUserCode() {
    return undefined // no device flow
  },
  async consume(id) {
    await sql`UPDATE oidc_models SET consumed_at = now() WHERE model = ${model} AND id = ${id}`
  },
  async destroy(id) {
    await sql`DELETE FROM oidc_models WHERE model = ${model} AND id = ${id}`
  },
  async revokeByGrantId(grantId) {
    await sql`DELETE FROM oidc_models WHERE model = ${model} AND grant_id = ${grantId}`
  }
})

/** The Client model: read-only from oidc_clients, the secret decrypted for the provider's own comparison. */
export const clientAdapter = (sql: Sql, key: Buffer): Adapter => {
  const refuse = async () => {
    throw new Error("oidc clients are managed by gep oidc client create and POST /api/v1/oidc/clients")
  }
  return {
    async find(id) {
      const [row] = await sql`SELECT client_id, tenant_id, name, secret_encrypted, redirect_uris, post_logout_redirect_uris
        FROM oidc_clients WHERE client_id = ${id}`
      if (row === undefined) return undefined
      return {
        client_id: row.client_id as string,
        client_secret: decryptClientSecret(key, row.client_id as string, row.secret_encrypted as Uint8Array),
        client_name: row.name as string,
        redirect_uris: row.redirect_uris as Array<string>,
        post_logout_redirect_uris: row.post_logout_redirect_uris as Array<string>,
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
        id_token_signed_response_alg: "RS256",
        tenant_id: row.tenant_id as string
      } as AdapterPayload
    },
    upsert: refuse, consume: refuse, destroy: refuse, revokeByGrantId: refuse,
    findByUid: async () => undefined, findByUserCode: async () => undefined
  }
}

/** Sign-out revokes every access token of the member, in every session and client (not only the one signing out), and its club transfers. */
export const revokeAccountTokens = async (sql: Sql, accountId: string) => {
  await sql`DELETE FROM oidc_models WHERE account_id = ${accountId} AND model IN ('AccessToken', 'RefreshToken', 'AuthorizationCode')`
  await sql`UPDATE loyalty_club_tokens SET revoked_at = now() WHERE member_id = ${accountId}::uuid AND revoked_at IS NULL`
  // A club code not yet exchanged would otherwise still become a transfer token after the member signed out.
  await sql`UPDATE loyalty_club_codes SET consumed_at = now() WHERE member_id = ${accountId}::uuid AND consumed_at IS NULL`
}

/** Expired provider state and sign-in codes, deleted (the adapter already ignores them). */
export const sweepExpired = async (sql: Sql) => {
  await sql`DELETE FROM oidc_models WHERE expires_at < now() - interval '1 minute'`
  await sql`DELETE FROM oidc_sign_in_codes WHERE expires_at < now() - interval '1 minute'`
}
