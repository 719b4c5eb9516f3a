import { createHmac, generateKeyPairSync, randomUUID } from "node:crypto"
import type { Sql } from "../../core/db/Database.ts"
import { decryptSigningKey, encryptSigningKey } from "./secrets.ts"

// RS256 signing keys in PostgreSQL. Rotation without downtime: a `next` key is published in the JWKS before it
// signs; `gep oidc rotate-keys` makes it `current` (it signs from then on), keeps the old one published as `retired`
// (id_tokens it signed still verify) and publishes a fresh `next`. Every ingress reloads its provider when the set
// changes (version = the newest change).

/** The key set of an at-rest key: its fingerprint (a deployment has one; so does each test run sharing a database). */
const ringOf = (key: Buffer) => createHmac("sha256", key).update("oidc-signing-ring:v1").digest("base64url").slice(0, 22)

const newPrivateJwk = () => {
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 })
  const kid = randomUUID()
  return { kid, jwk: { ...privateKey.export({ format: "jwk" }), kid, alg: "RS256", use: "sig" } }
}

const insertKey = async (sql: Sql, key: Buffer, state: "next" | "current") => {
  const { kid, jwk } = newPrivateJwk()
  await sql`INSERT INTO oidc_signing_keys (kid, ring, private_jwk_encrypted, state) VALUES (${kid}, ${ringOf(key)}, ${encryptSigningKey(key, kid, jwk)}, ${state})
    ON CONFLICT DO NOTHING`
}

/** A current and a next key exist (the first start creates them; concurrent starts agree through the unique indexes). */
export const ensureSigningKeys = async (sql: Sql, key: Buffer) => {
  const rows = await sql`SELECT state FROM oidc_signing_keys WHERE ring = ${ringOf(key)} AND state IN ('current', 'next')`
  if (!rows.some((r) => r.state === "current")) await insertKey(sql, key, "current")
  if (!rows.some((r) => r.state === "next")) await insertKey(sql, key, "next")
}

/** How long a retired key stays published: longer than any id_token it signed lives (IdToken TTL 1 h) plus skew. */
const RETIRED_PUBLISHED_HOURS = 2

/** The private JWKs in the provider's order (the first signs): current, next, then retired ones still published. */
export const loadSigningKeys = async (sql: Sql, key: Buffer) => {
  const rows = await sql`SELECT kid, private_jwk_encrypted, state FROM oidc_signing_keys
    WHERE ring = ${ringOf(key)} AND (state <> 'retired' OR retired_at > now() - make_interval(hours => ${RETIRED_PUBLISHED_HOURS}))
    ORDER BY CASE state WHEN 'current' THEN 0 WHEN 'next' THEN 1 ELSE 2 END, created_at DESC`
  return rows.map((r) => decryptSigningKey(key, r.kid as string, r.private_jwk_encrypted as Uint8Array))
}

/** A fingerprint of the published set: a provider built from another set is rebuilt. */
export const signingKeysVersion = async (sql: Sql, key: Buffer) => {
  const [row] = await sql`SELECT string_agg(kid || ':' || state, ',' ORDER BY kid) AS v FROM oidc_signing_keys
    WHERE ring = ${ringOf(key)} AND (state <> 'retired' OR retired_at > now() - make_interval(hours => ${RETIRED_PUBLISHED_HOURS}))`
  return (row?.v as string | null) ?? ""
}

/** next → current, current → retired, a fresh next; in one transaction. Answers the kids after the rotation. */
export const rotateSigningKeys = async (sql: Sql, key: Buffer) => {
  await ensureSigningKeys(sql, key)
  return sql.begin(async (tx) => {
    await tx`LOCK TABLE oidc_signing_keys IN EXCLUSIVE MODE`
    const ring = ringOf(key)
    await tx`UPDATE oidc_signing_keys SET state = 'retired', retired_at = now() WHERE ring = ${ring} AND state = 'current'`
    await tx`UPDATE oidc_signing_keys SET state = 'current' WHERE ring = ${ring} AND state = 'next'`
    await insertKey(tx as unknown as Sql, key, "next")
    await tx`DELETE FROM oidc_signing_keys WHERE ring = ${ring} AND state = 'retired' AND retired_at < now() - make_interval(hours => ${RETIRED_PUBLISHED_HOURS})`
    const rows = await tx`SELECT kid, state FROM oidc_signing_keys WHERE ring = ${ring} ORDER BY state`
    return {
      current_kid: rows.find((r) => r.state === "current")?.kid as string,
      next_kid: rows.find((r) => r.state === "next")?.kid as string,
      retired_kids: rows.filter((r) => r.state === "retired").map((r) => r.kid as string)
    }
  })
}
