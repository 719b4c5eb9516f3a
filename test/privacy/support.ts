import { connect } from "@nats-io/transport-node"
import { randomBytes, randomUUID } from "node:crypto"
import type postgres from "postgres"
import { makePrivacyKey, type PrivacyKeyShape } from "../../core/privacy/PrivacyKey.ts"
import type { Identifier } from "../../core/privacy/identifier.ts"
import type { TenantScope } from "../../core/TenantScope.ts"

// Suppressions as the privacy requests' POST writes them (keyed hashes under the platform's privacy key), and a watch
// on everything a deployment publishes, to show that nothing carrying a suppressed identifier reaches a stream.

/** The privacy key of this test process: the platforms it starts (and the processes they spawn) hash with it too. */
export const usePrivacyKey = (): PrivacyKeyShape => {
  const root = randomBytes(32)
  process.env.GEP_PRIVACY_KEY = root.toString("base64")
  return makePrivacyKey(root)
}

export const suppress = (sql: postgres.Sql, key: PrivacyKeyShape, scope: TenantScope, identifier: Identifier) => sql`
  INSERT INTO privacy_suppressions (tenant_id, sandbox, id_hash, kind, request_id, key_id)
  VALUES (${scope.tenant_id}, ${scope.sandbox}, ${key.hash(scope.tenant_id, identifier)}, ${identifier.kind}, ${randomUUID()}, ${key.keyId})`

export const lift = (sql: postgres.Sql, key: PrivacyKeyShape, scope: TenantScope, identifier: Identifier) => sql`
  DELETE FROM privacy_suppressions WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox}
    AND id_hash = ${key.hash(scope.tenant_id, identifier)}`

/**
 * Every message published under a namespace (ingress envelopes, outbox commands and events, replies), raw. msgpack
 * keeps strings as their UTF-8 bytes, so a value is found in a message by its bytes.
 */
export const watchPublished = async (natsUrl: string, namespace: string) => {
  const nc = await connect({ servers: natsUrl })
  const seen: Array<{ subject: string; data: Buffer }> = []
  nc.subscribe(`${namespace}.>`, { callback: (_, msg) => void seen.push({ subject: msg.subject, data: Buffer.from(msg.data) }) })
  await nc.flush()
  return {
    count: () => seen.length,
    /** Subjects of the messages since `from` whose bytes hold any of `values`. */
    carrying: (values: ReadonlyArray<string>, from = 0) =>
      seen.slice(from).filter((m) => values.some((v) => m.data.includes(Buffer.from(v, "utf8")))).map((m) => m.subject),
    close: () => nc.close()
  }
}

/** Waits out a cache's time to live (the ingress's view of the suppressions). */
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
