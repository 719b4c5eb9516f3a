import { PREPARED, type Tx } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { DealRow } from "./deals.ts"

// The b2b actor's deals and the links of people to accounts.

const DEAL_COLUMNS = `id, account_id, contact_id, name, type, stage, lost_reason, hotel_ids::text[] AS hotel_ids,
  to_char(arrival, 'YYYY-MM-DD') AS arrival, to_char(departure, 'YYYY-MM-DD') AS departure, room_nights,
  value_amount::float8 AS value_amount, value_currency, probability, to_char(expected_close, 'YYYY-MM-DD') AS expected_close,
  rate_codes, external_id, owner_user_id, closed_at, version`

export const findDealForUpdate = async (tx: Tx, scope: TenantScope, accountId: string, dealId: string): Promise<DealRow | undefined> => {
  const [row] = await tx.unsafe(
    `SELECT ${DEAL_COLUMNS} FROM b2b_deals WHERE tenant_id = $1 AND sandbox = $2 AND account_id = $3 AND id = $4 FOR UPDATE`,
    [scope.tenant_id, scope.sandbox, accountId, dealId], PREPARED
  )
  if (!row) return undefined
  return { ...row, closed_at: row.closed_at === null ? null : (row.closed_at as Date).toISOString() } as unknown as DealRow
}

/** Inserts a new deal or overwrites a stored one with its merged state. */
export const saveDeal = (tx: Tx, scope: TenantScope, d: DealRow) =>
  tx`
    INSERT INTO b2b_deals (id, tenant_id, sandbox, account_id, contact_id, name, type, stage, lost_reason, hotel_ids,
      arrival, departure, room_nights, value_amount, value_currency, probability, expected_close, rate_codes,
      external_id, owner_user_id, closed_at, version)
    VALUES (${d.id}, ${scope.tenant_id}, ${scope.sandbox}, ${d.account_id}, ${d.contact_id}, ${d.name}, ${d.type},
      ${d.stage}, ${d.lost_reason}, ${d.hotel_ids as Array<string>}::uuid[], ${d.arrival}, ${d.departure},
      ${d.room_nights}, ${d.value_amount}, ${d.value_currency}, ${d.probability}, ${d.expected_close},
      ${d.rate_codes as Array<string>}::text[], ${d.external_id}, ${d.owner_user_id}, ${d.closed_at}, ${d.version})
    ON CONFLICT (id) DO UPDATE SET
      contact_id = EXCLUDED.contact_id, name = EXCLUDED.name, type = EXCLUDED.type, stage = EXCLUDED.stage,
      lost_reason = EXCLUDED.lost_reason, hotel_ids = EXCLUDED.hotel_ids, arrival = EXCLUDED.arrival,
      departure = EXCLUDED.departure, room_nights = EXCLUDED.room_nights, value_amount = EXCLUDED.value_amount,
      value_currency = EXCLUDED.value_currency, probability = EXCLUDED.probability,
      expected_close = EXCLUDED.expected_close, rate_codes = EXCLUDED.rate_codes, external_id = EXCLUDED.external_id,
      owner_user_id = EXCLUDED.owner_user_id, closed_at = EXCLUDED.closed_at, version = EXCLUDED.version, updated_at = now()`

export const contactExists = async (tx: Tx, scope: TenantScope, contactId: string): Promise<boolean> => {
  const rows = await tx`SELECT 1 FROM contacts WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox} AND id = ${contactId}`
  return rows.length > 0
}

export interface ContactLink {
  readonly account_id: string
  readonly contact_id: string
  /** Absent: keep the stored value (or none for a new link). */
  readonly role?: string | null | undefined
  readonly title?: string | null | undefined
  readonly is_primary?: boolean | undefined
}

/**
 * Links a person to the account, or updates the link with what was sent. A new primary contact takes the flag from
 * the previous one (the clearing runs first: the connection keeps the order). Returns the link and whether it is new.
 */
export const linkContact = async (tx: Tx, scope: TenantScope, link: ContactLink) => {
  const [, [row]] = await Promise.all([
    link.is_primary === true
      ? tx`UPDATE b2b_account_contacts SET is_primary = false, updated_at = now()
           WHERE account_id = ${link.account_id} AND contact_id <> ${link.contact_id} AND is_primary`
      : undefined,
    tx`
      INSERT INTO b2b_account_contacts (account_id, contact_id, tenant_id, sandbox, role, title, is_primary)
      VALUES (${link.account_id}, ${link.contact_id}, ${scope.tenant_id}, ${scope.sandbox}, ${link.role ?? null},
        ${link.title ?? null}, ${link.is_primary ?? false})
      ON CONFLICT (account_id, contact_id) DO UPDATE SET
        role = CASE WHEN ${link.role !== undefined} THEN EXCLUDED.role ELSE b2b_account_contacts.role END,
        title = CASE WHEN ${link.title !== undefined} THEN EXCLUDED.title ELSE b2b_account_contacts.title END,
        is_primary = CASE WHEN ${link.is_primary !== undefined} THEN EXCLUDED.is_primary ELSE b2b_account_contacts.is_primary END,
        updated_at = now()
      RETURNING role, title, is_primary, (xmax = 0) AS inserted`
  ])
  return row as { role: string | null; title: string | null; is_primary: boolean; inserted: boolean }
}

/** Keeps a role mailbox among the account's desk emails (once). */
export const addDeskEmail = (tx: Tx, accountId: string, email: string) =>
  tx`
    UPDATE b2b_accounts SET desk_emails = desk_emails || ${email}::text, updated_at = now()
    WHERE id = ${accountId} AND NOT (${email}::text = ANY(desk_emails))`
