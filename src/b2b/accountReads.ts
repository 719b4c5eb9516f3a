import type { Tx } from "../../core/db/Database.ts"
import { normaliseCode, normaliseIata } from "../../core/normalise/b2b.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { AccountContactView, AccountView, Production } from "../../schemas/b2b.ts"
import { encodeCursor, isUuid, type Page } from "./paging.ts"

// Reads of accounts, run inside `withTenant` (row-level security confines them to the tenant, as the filters do).

const ACCOUNT_COLUMNS = `a.id AS account_id, a.name, a.type, a.parent_id, a.depth, a.path::text[] AS path, a.email_domains,
  a.desk_emails, a.phone, a.country, a.owner_user_id, a.created_at, a.updated_at,
  coalesce((SELECT jsonb_agg(jsonb_build_object('kind', k.kind, 'display', k.display, 'hotel_id', k.hotel_id,
      'valid_from', k.valid_from, 'valid_to', k.valid_to, 'deal_id', k.deal_id) ORDER BY k.kind, k.display, k.hotel_id)
    FROM b2b_codes k WHERE k.account_id = a.id), '[]'::jsonb) AS codes`

interface StoredCode {
  readonly kind: string
  readonly display: string
  readonly hotel_id: string | null
  readonly valid_from: string | null
  readonly valid_to: string | null
  readonly deal_id: string | null
}

const toView = (row: Record<string, unknown>): AccountView => {
  const codes = row.codes as ReadonlyArray<StoredCode>
  const of = (kind: string) => codes.filter((c) => c.kind === kind)
  return {
    account_id: row.account_id as string,
    name: row.name as string,
    type: row.type as string,
    parent_id: row.parent_id as string | null,
    depth: row.depth as number,
    path: row.path as Array<string>,
    external_id: of("external_id")[0]?.display ?? null,
    codes: {
      agency_codes: of("agency_code").map((c) => c.display),
      promo_codes: of("promo_code").map((c) => c.display),
      rate_codes: of("rate_code").map((c) => ({
        code: c.display, hotel_id: c.hotel_id, valid_from: c.valid_from, valid_to: c.valid_to, deal_id: c.deal_id
      })),
      iata: of("iata")[0]?.display ?? null
    },
    email_domains: row.email_domains as Array<string>,
    desk_emails: row.desk_emails as Array<string>,
    phone: row.phone as string | null,
    country: row.country as string | null,
    owner_user_id: row.owner_user_id as string | null,
    created_at: (row.created_at as Date).toISOString(),
    updated_at: (row.updated_at as Date).toISOString()
  }
}

export const readAccount = async (tx: Tx, scope: TenantScope, id: string): Promise<AccountView | undefined> => {
  if (!isUuid(id)) return undefined
  const [row] = await tx.unsafe(
    `SELECT ${ACCOUNT_COLUMNS} FROM b2b_accounts a WHERE a.tenant_id = $1 AND a.sandbox = $2 AND a.id = $3`,
    [scope.tenant_id, scope.sandbox, id]
  )
  return row === undefined ? undefined : toView(row)
}

const NO_PRODUCTION: Production = { reservations: 0, room_nights: 0, revenue: [] }

const add = (p: Production, reservations: number, nights: number, currency: string | null, amount: number | null): Production => {
  const revenue = [...p.revenue]
  if (amount !== null) {
    const i = revenue.findIndex((r) => r.currency === currency)
    if (i < 0) revenue.push({ currency, amount })
    else revenue[i] = { currency, amount: revenue[i]!.amount + amount }
  }
  return { reservations: p.reservations + reservations, room_nights: p.room_nights + nights, revenue }
}

/**
 * Production of the account and its descendants from the reservations attributed to them (cancelled and no-show
 * ones excluded), in one query grouped by the child subtree each attributed account sits in; revenue per currency.
 */
const production = async (tx: Tx, scope: TenantScope, account: AccountView) => {
  const rows = await tx.unsafe(
    `SELECT (a.path[$4::int + 1])::text AS child, r.currency, count(*)::int AS reservations,
       coalesce(sum(r.nights), 0)::int AS room_nights, sum(r.amount)::float8 AS amount
     FROM b2b_attributions t
     JOIN b2b_accounts a ON a.id = t.account_id
     JOIN reservations r ON r.id = t.reservation_id
     WHERE t.tenant_id = $1 AND t.sandbox = $2 AND a.path @> ARRAY[$3::uuid] AND r.status NOT IN ('cancelled', 'no_show')
     GROUP BY 1, 2`,
    [scope.tenant_id, scope.sandbox, account.account_id, account.depth]
  )
  let total = NO_PRODUCTION
  const children = new Map<string, Production>()
  for (const r of rows) {
    const args = [r.reservations as number, r.room_nights as number, r.currency as string | null, r.amount as number | null] as const
    total = add(total, ...args)
    if (r.child !== null) children.set(r.child as string, add(children.get(r.child as string) ?? NO_PRODUCTION, ...args))
  }
  return { total, children }
}

/** An account with its direct children (each with its subtree's production), its people and its production. */
export const readAccountDetail = async (tx: Tx, scope: TenantScope, id: string) => {
  const account = await readAccount(tx, scope, id)
  if (account === undefined) return undefined
  const [children, contacts, produced] = await Promise.all([
    tx<Array<{ account_id: string; name: string; type: string; depth: number }>>`SELECT id AS account_id, name, type, depth FROM b2b_accounts
       WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox} AND parent_id = ${id} ORDER BY name, id`,
    tx<Array<typeof AccountContactView.Type>>`SELECT l.contact_id, c.first_name, c.last_name, c.email, c.phone, l.role, l.title, l.is_primary
       FROM b2b_account_contacts l JOIN contacts c ON c.id = l.contact_id
       WHERE l.account_id = ${id} ORDER BY l.is_primary DESC, c.last_name, c.first_name, l.contact_id`,
    production(tx, scope, account)
  ])
  return {
    ...account,
    children: children.map((c) => ({ ...c, production: produced.children.get(c.account_id) ?? NO_PRODUCTION })),
    contacts: [...contacts],
    production: produced.total
  }
}

/** Accounts by name (keyset pages); with `code`, those holding it as any kind of code or as their external id. */
export const listAccounts = async (tx: Tx, scope: TenantScope, code: string | undefined, page: Page) => {
  const codes = code === undefined ? null : [normaliseCode(code), normaliseIata(code)].filter((c): c is string => c !== undefined && c !== "")
  const rows = await tx.unsafe(
    `SELECT ${ACCOUNT_COLUMNS} FROM b2b_accounts a
     WHERE a.tenant_id = $1 AND a.sandbox = $2
       AND ($3::text[] IS NULL OR a.id IN (SELECT k.account_id FROM b2b_codes k WHERE k.tenant_id = $1 AND k.sandbox = $2 AND k.code = ANY($3::text[])))
       AND ($4::text IS NULL OR (a.name, a.id) > ($4::text, $5::uuid))
     ORDER BY a.name, a.id LIMIT $6`,
    [scope.tenant_id, scope.sandbox, codes as never, page.after?.key ?? null, page.after?.id ?? null, page.limit + 1]
  )
  const shown = rows.slice(0, page.limit).map(toView)
  const last = shown.at(-1)
  return { accounts: shown, next_cursor: rows.length > page.limit && last ? encodeCursor(last.name, last.account_id) : null }
}
