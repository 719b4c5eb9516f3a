import { createHash } from "node:crypto"
import type { Sql } from "../../core/db/Database.ts"
import type { KeyKind } from "../../core/website/credentials.ts"
import type { Result } from "./answers.ts"
import type { Credential } from "./WebSources.ts"

export interface Delivery {
  readonly credential: Credential
  readonly status: number
  readonly error_code: string | null
  readonly origin: string | null
  readonly ip: string | null
  readonly user_agent: string | null
  readonly body: Uint8Array | undefined
  readonly test: boolean
  readonly result: Result | undefined
}

/**
 * One row per request tied to a source (accepted or rejected, with its results): the answer to "where did my event
 * go". A request with a bad or missing credential is tied to no source and appears in no log. Read for 14 days.
 */
export const logDelivery = (sql: Sql, d: Delivery) => {
  const s = d.credential.source
  const kind: KeyKind = d.credential.kind
  return sql`
    INSERT INTO website_deliveries (tenant_id, sandbox, source_id, credential, key_id, status, error_code, origin, ip,
      user_agent, body_bytes, body_sha256, test, received, accepted, duplicate, rejected, results)
    VALUES (${s.scope.tenant_id}, ${s.scope.sandbox}, ${s.id}, ${kind}, ${d.credential.key_id}, ${d.status}, ${d.error_code},
      ${d.origin}, ${d.ip}, ${d.user_agent?.slice(0, 500) ?? null}, ${d.body?.length ?? 0},
      ${d.body === undefined ? null : createHash("sha256").update(d.body).digest("hex")}, ${d.test},
      ${d.result?.received ?? 0}, ${d.result?.accepted ?? 0}, ${d.result?.duplicate ?? 0}, ${d.result?.rejected ?? 0},
      ${d.result === undefined ? null : sql.json(d.result.results as never)})`
}
