import type { Tx } from "../../core/db/Database.ts"
import { hashesParameter } from "../../core/privacy/hashParameter.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { PrivacyRequestStatus, PrivacyRequestType, PrivacyRequestView } from "../../schemas/privacyApi.ts"
import { exactTime } from "../http/cursor.ts"
import { type PageRequest, pageOf } from "../http/paging.ts"

// Privacy request rows as the API writes and reads them, in a transaction confined to the caller's tenant.

export interface RequestRecord {
  readonly id: string
  readonly type: PrivacyRequestType
  readonly subject_kind: PrivacyRequestView["subject_kind"]
  readonly subject_hashes: ReadonlyArray<Buffer>
  readonly contact_ids: ReadonlyArray<string>
  readonly related_contact_ids: ReadonlyArray<string>
  readonly reference: string | null
  readonly status: PrivacyRequestStatus
  readonly results: PrivacyRequestView["results"]
  readonly error: string | null
  readonly key_id: string
  readonly created_at: Date
  readonly started_at: Date | null
  readonly completed_at: Date | null
  readonly export_expires_at: Date | null
  readonly cursor_at: string
}

const COLUMNS = `r.id::text AS id, r.type, r.subject_kind, r.subject_hashes, r.contact_ids::text[] AS contact_ids,
  r.related_contact_ids::text[] AS related_contact_ids, r.reference,
  r.status, r.results, r.error, r.key_id, r.created_at, r.started_at, r.completed_at,
  (SELECT e.expires_at FROM privacy_exports e WHERE e.request_id = r.id AND e.expires_at > now()) AS export_expires_at,
  ${exactTime("r.created_at")} AS cursor_at`

export interface NewRequest extends Pick<RequestRecord,
  "id" | "type" | "subject_kind" | "subject_hashes" | "contact_ids" | "related_contact_ids" | "reference" | "status" | "results" | "key_id"
> {
  readonly namespace: string
  readonly subject_sealed: Buffer | null
  readonly requested_by: string | null
}

export const insertRequest = async (tx: Tx, scope: TenantScope, r: NewRequest) => {
  const ended = r.status === "completed"
  await tx`
    INSERT INTO privacy_requests (id, tenant_id, sandbox, namespace, type, subject_kind, subject_sealed, subject_hashes,
      contact_ids, related_contact_ids, reference, status, results, key_id, requested_by, started_at, completed_at)
    VALUES (${r.id}, ${scope.tenant_id}, ${scope.sandbox}, ${r.namespace}, ${r.type}, ${r.subject_kind}, ${r.subject_sealed},
      ${hashesParameter(tx, r.subject_hashes)}::bytea[], ${r.contact_ids as Array<string>}::uuid[],
      ${r.related_contact_ids as Array<string>}::uuid[], ${r.reference}, ${r.status},
      ${tx.json(r.results as never)}, ${r.key_id}, ${r.requested_by}, ${ended ? tx`now()` : null}, ${ended ? tx`now()` : null})`
}

export const readRequest = async (tx: Tx, scope: TenantScope, id: string): Promise<RequestRecord | undefined> =>
  (await tx.unsafe<Array<RequestRecord>>(
    `SELECT ${COLUMNS} FROM privacy_requests r WHERE r.id = $1 AND r.tenant_id = $2 AND r.sandbox = $3`,
    [id, scope.tenant_id, scope.sandbox]))[0]

export const requestByReference = async (tx: Tx, scope: TenantScope, reference: string): Promise<RequestRecord | undefined> =>
  (await tx.unsafe<Array<RequestRecord>>(
    `SELECT ${COLUMNS} FROM privacy_requests r WHERE r.tenant_id = $1 AND r.sandbox = $2 AND r.reference = $3`,
    [scope.tenant_id, scope.sandbox, reference]))[0]

export const listRequests = async (tx: Tx, scope: TenantScope, status: PrivacyRequestStatus | undefined, o: PageRequest) => {
  const rows = await tx.unsafe<Array<RequestRecord>>(
    `SELECT ${COLUMNS} FROM privacy_requests r
     WHERE r.tenant_id = $1 AND r.sandbox = $2 AND ($3::text IS NULL OR r.status = $3)
       AND ($4::text IS NULL OR (r.created_at, r.id) < ($4::text::timestamptz, $5::uuid))
     ORDER BY r.created_at DESC, r.id DESC LIMIT $6`,
    [scope.tenant_id, scope.sandbox, status ?? null, o.after?.at ?? null, o.after?.id ?? null, o.limit + 1])
  return pageOf(rows, o.limit, (r) => ({ at: r.cursor_at, id: r.id }))
}

/** Suppression entries for these hashes (kept when already there: the first request that suppressed stays named). */
export const suppress = async (tx: Tx, scope: TenantScope, requestId: string, keyId: string, entries: ReadonlyArray<{ hash: Buffer; kind: "email" | "phone" }>) => {
  if (entries.length === 0) return 0
  const rows = await tx`
    INSERT INTO privacy_suppressions (tenant_id, sandbox, id_hash, kind, request_id, key_id)
    SELECT ${scope.tenant_id}, ${scope.sandbox}, h, k, ${requestId}, ${keyId}
    FROM unnest(${hashesParameter(tx, entries.map((e) => e.hash))}::bytea[], ${entries.map((e) => e.kind)}::text[]) AS x(h, k)
    ON CONFLICT DO NOTHING`
  return rows.count
}

export const unsuppress = async (tx: Tx, scope: TenantScope, hashes: ReadonlyArray<Buffer>) =>
  (await tx`DELETE FROM privacy_suppressions WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox}
            AND id_hash = ANY(${hashesParameter(tx, hashes)}::bytea[])`).count
