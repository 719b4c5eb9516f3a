import { type Tx, withRecords } from "../../core/db/Database.ts"
import type { CodeKind } from "../../core/normalise/b2b.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { CodeRow, CreateAccount, UpdateAccount } from "./writeProtocol.ts"
import { isUuid } from "../../schemas/common.ts"

// The b2b actor's account tables: accounts (with their place in the tree) and the codes that name them.

/**
 * Serialises the B2B writes of one tenant and mode until the transaction ends: tree moves and code uniqueness are
 * decided over several accounts, which may be applied by other workers at the same time.
 */
export const lockTenantAccounts = (tx: Tx, scope: TenantScope) =>
  tx`SELECT pg_advisory_xact_lock(hashtextextended(${`b2b:${scope.tenant_id}:${scope.sandbox}`}, 0))`

export interface StoredAccount {
  readonly id: string
  readonly parent_id: string | null
  readonly path: ReadonlyArray<string>
  readonly depth: number
  readonly desk_emails: ReadonlyArray<string>
}

/**
 * An account of this tenant and mode, or undefined (an id that is no UUID names none). Locked FOR NO KEY UPDATE, not
 * FOR UPDATE: reservation waves attributing to it hold KEY SHARE locks (their foreign keys) and must not wait for, or
 * deadlock with, a B2B write; B2B writers are already serialised by the tenant's lock.
 */
export const findAccount = async (tx: Tx, scope: TenantScope, id: string): Promise<StoredAccount | undefined> => {
  if (!isUuid(id)) return undefined
  const [row] = await tx<Array<StoredAccount>>`
    SELECT id, parent_id, path::text[] AS path, depth, desk_emails FROM b2b_accounts
    WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox} AND id = ${id} FOR NO KEY UPDATE`
  return row
}

/** Levels of the subtree rooted at the account (1 for a leaf). */
export const subtreeHeight = async (tx: Tx, scope: TenantScope, account: StoredAccount): Promise<number> => {
  const [row] = await tx`
    SELECT max(depth) AS deepest FROM b2b_accounts
    WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox} AND path @> ARRAY[${account.id}]::uuid[]`
  return Number(row?.deepest ?? account.depth) - account.depth + 1
}

export interface CodeConflict {
  readonly index: number
  readonly kind: CodeKind
  readonly display: string
  readonly account_id: string
}

/** The first of these codes (by position) that another account of the tenant and mode already holds. */
export const firstCodeConflict = async (tx: Tx, scope: TenantScope, accountId: string, codes: ReadonlyArray<CodeRow>): Promise<CodeConflict | undefined> => {
  if (codes.length === 0) return undefined
  const [row] = await withRecords(
    tx,
    scope,
    `SELECT s.index, k.kind, k.display, k.account_id
     FROM jsonb_to_recordset($3::jsonb) AS s(index integer, owner uuid, kind text, code text, hotel_id uuid)
     JOIN b2b_codes k ON k.tenant_id = $1 AND k.sandbox = $2 AND k.kind = s.kind AND k.code = s.code
       AND coalesce(k.hotel_id, '00000000-0000-0000-0000-000000000000'::uuid) = coalesce(s.hotel_id, '00000000-0000-0000-0000-000000000000'::uuid)
       AND k.account_id <> s.owner
     ORDER BY s.index LIMIT 1`,
    codes.map((c, index) => ({ index, owner: accountId, kind: c.kind, code: c.code, hotel_id: c.hotel_id }))
  )
  return row as CodeConflict | undefined
}

export const insertAccount = (tx: Tx, scope: TenantScope, cmd: CreateAccount, path: ReadonlyArray<string>) =>
  tx`
    INSERT INTO b2b_accounts (id, tenant_id, sandbox, name, type, parent_id, path, depth, email_domains, desk_emails,
      phone, country, owner_user_id)
    VALUES (${cmd.account_id}, ${scope.tenant_id}, ${scope.sandbox}, ${cmd.name}, ${cmd.type}, ${cmd.parent_id},
      ${path as Array<string>}::uuid[], ${path.length}, ${cmd.email_domains as Array<string>}::text[],
      ${cmd.desk_emails as Array<string>}::text[], ${cmd.phone}, ${cmd.country}, ${cmd.owner_user_id})`

/** The columns a patch sets (absent ones keep their value). */
export const updateAccount = (tx: Tx, scope: TenantScope, id: string, set: UpdateAccount["set"]) => {
  const has = (k: keyof UpdateAccount["set"]) => set[k] !== undefined
  return tx`
    UPDATE b2b_accounts SET
      name = CASE WHEN ${has("name")} THEN ${set.name ?? null} ELSE name END,
      type = CASE WHEN ${has("type")} THEN ${set.type ?? null} ELSE type END,
      email_domains = CASE WHEN ${has("email_domains")} THEN ${(set.email_domains ?? []) as Array<string>}::text[] ELSE email_domains END,
      desk_emails = CASE WHEN ${has("desk_emails")} THEN ${(set.desk_emails ?? []) as Array<string>}::text[] ELSE desk_emails END,
      phone = CASE WHEN ${has("phone")} THEN ${set.phone ?? null} ELSE phone END,
      country = CASE WHEN ${has("country")} THEN ${set.country ?? null} ELSE country END,
      owner_user_id = CASE WHEN ${has("owner_user_id")} THEN ${set.owner_user_id ?? null} ELSE owner_user_id END,
      version = version + 1, updated_at = now()
    WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox} AND id = ${id}`
}

/**
 * Moves an account (and its subtree) under a parent whose path is `parentPath` (empty: to the root level): every
 * path of the subtree keeps its part from the account down and takes the new ancestors in front.
 */
export const moveSubtree = (tx: Tx, scope: TenantScope, account: StoredAccount, parentId: string | null, parentPath: ReadonlyArray<string>) =>
  Promise.all([
    tx`
      UPDATE b2b_accounts SET
        path = ${parentPath as Array<string>}::uuid[] || path[${account.depth}::int:cardinality(path)],
        depth = ${parentPath.length}::int + cardinality(path) - ${account.depth}::int + 1,
        updated_at = now()
      WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox} AND path @> ARRAY[${account.id}]::uuid[]`,
    tx`UPDATE b2b_accounts SET parent_id = ${parentId} WHERE id = ${account.id}`
  ])

/** Replaces the account's codes of these kinds by `codes`. */
export const replaceCodes = async (tx: Tx, scope: TenantScope, accountId: string, kinds: ReadonlyArray<CodeKind>, codes: ReadonlyArray<CodeRow>) => {
  if (kinds.length > 0) await tx`DELETE FROM b2b_codes WHERE account_id = ${accountId} AND kind = ANY(${kinds as Array<string>}::text[])`
  await insertCodes(tx, scope, accountId, codes, null)
}

const CODE_KEY = `(tenant_id, sandbox, kind, code, coalesce(hotel_id, '00000000-0000-0000-0000-000000000000'::uuid))`

/**
 * Adds codes to the account; one it already holds at the same hotel takes the new validity (and deal). Conflicts
 * with other accounts were ruled out first, under the tenant's lock.
 */
export const insertCodes = async (tx: Tx, scope: TenantScope, accountId: string, codes: ReadonlyArray<CodeRow>, dealId: string | null) => {
  if (codes.length === 0) return
  await withRecords(
    tx,
    scope,
    `INSERT INTO b2b_codes (id, tenant_id, sandbox, account_id, kind, code, display, hotel_id, valid_from, valid_to, deal_id)
     SELECT gen_random_uuid(), $1, $2, s.account_id, s.kind, s.code, s.display, s.hotel_id, s.valid_from, s.valid_to, s.deal_id
     FROM jsonb_to_recordset($3::jsonb) AS s(account_id uuid, kind text, code text, display text, hotel_id uuid,
       valid_from date, valid_to date, deal_id uuid)
     ON CONFLICT ${CODE_KEY} DO UPDATE SET display = EXCLUDED.display, valid_from = EXCLUDED.valid_from,
       valid_to = EXCLUDED.valid_to, deal_id = EXCLUDED.deal_id
     WHERE b2b_codes.account_id = EXCLUDED.account_id`,
    codes.map((c) => ({ ...c, account_id: accountId, deal_id: dealId }))
  )
}
