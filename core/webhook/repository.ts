import { jsonb, type Sql } from "../db/Database.ts"
import type { TenantScope } from "../TenantScope.ts"

/** Columns a create or an update writes (secrets have their own statements). */
export interface SubscriptionFields {
  readonly url: string
  readonly event_types: ReadonlyArray<string>
  readonly headers: Record<string, string>
  readonly enabled: boolean
  readonly disabled_reason: string | null
  readonly description: string | null
  readonly max_attempts: number
  readonly initial_backoff_seconds: number
  readonly max_backoff_seconds: number
}

/** A stored subscription: the written fields plus identity, secrets and timestamps. */
export interface SubscriptionRow extends SubscriptionFields {
  readonly id: string
  readonly tenant_id: string
  readonly sandbox: boolean
  readonly event_types: Array<string>
  readonly secret_encrypted: Buffer
  readonly previous_secret_encrypted: Buffer | null
  readonly previous_secret_expires_at: Date | null
  readonly created_at: Date
  readonly updated_at: Date
}

/** The public view of a subscription: never a secret, encrypted or not. */
export const present = (r: SubscriptionRow) => ({
  id: r.id,
  url: r.url,
  event_types: r.event_types,
  headers: r.headers,
  enabled: r.enabled,
  disabled_reason: r.disabled_reason,
  description: r.description,
  retry_policy: {
    max_attempts: r.max_attempts,
    initial_backoff_seconds: r.initial_backoff_seconds,
    max_backoff_seconds: r.max_backoff_seconds
  },
  previous_secret_expires_at: r.previous_secret_expires_at && r.previous_secret_expires_at > new Date()
    ? r.previous_secret_expires_at.toISOString()
    : null,
  created_at: r.created_at.toISOString(),
  updated_at: r.updated_at.toISOString()
})

export const countSubscriptions = async (sql: Sql, scope: TenantScope): Promise<number> => {
  const [r] = await sql`
    SELECT count(*)::int AS n FROM webhook_subscriptions WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox}`
  return r!.n as number
}

export const insertSubscription = async (sql: Sql, scope: TenantScope, id: string, f: SubscriptionFields, secret: Buffer) => {
  const [row] = await sql<Array<SubscriptionRow>>`
    INSERT INTO webhook_subscriptions (id, tenant_id, sandbox, url, event_types, headers, enabled, disabled_reason,
      description, max_attempts, initial_backoff_seconds, max_backoff_seconds, secret_encrypted)
    VALUES (${id}, ${scope.tenant_id}, ${scope.sandbox}, ${f.url}, ${f.event_types as Array<string>}, ${jsonb(sql, f.headers)},
      ${f.enabled}, ${f.disabled_reason}, ${f.description}, ${f.max_attempts}, ${f.initial_backoff_seconds},
      ${f.max_backoff_seconds}, ${secret})
    RETURNING *`
  return row!
}

export const listSubscriptions = (sql: Sql, scope: TenantScope) => sql<Array<SubscriptionRow>>`
  SELECT * FROM webhook_subscriptions WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox}
  ORDER BY created_at, id`

export const findSubscription = async (sql: Sql, scope: TenantScope, id: string): Promise<SubscriptionRow | undefined> => {
  const [row] = await sql<Array<SubscriptionRow>>`
    SELECT * FROM webhook_subscriptions WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox} AND id = ${id}`
  return row
}

export const updateSubscription = async (sql: Sql, scope: TenantScope, id: string, f: SubscriptionFields) => {
  const [row] = await sql<Array<SubscriptionRow>>`
    UPDATE webhook_subscriptions SET url = ${f.url}, event_types = ${f.event_types as Array<string>},
      headers = ${jsonb(sql, f.headers)}, enabled = ${f.enabled}, disabled_reason = ${f.disabled_reason},
      description = ${f.description}, max_attempts = ${f.max_attempts},
      initial_backoff_seconds = ${f.initial_backoff_seconds}, max_backoff_seconds = ${f.max_backoff_seconds},
      updated_at = now()
    WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox} AND id = ${id}
    RETURNING *`
  return row
}

export const deleteSubscription = async (sql: Sql, scope: TenantScope, id: string): Promise<boolean> => {
  const rows = await sql`
    DELETE FROM webhook_subscriptions WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox} AND id = ${id}
    RETURNING id`
  return rows.length > 0
}

/** The current secret becomes the previous one (signing too until `previousExpiresAt`); the new one takes its place. */
export const rotateSecret = async (
  sql: Sql, scope: TenantScope, id: string,
  encrypt: (current: Buffer) => { next: Buffer; previous: Buffer },
  previousExpiresAt: Date
): Promise<SubscriptionRow | undefined> =>
  sql.begin(async (tx) => {
    const [row] = await tx<Array<SubscriptionRow>>`
      SELECT * FROM webhook_subscriptions WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox} AND id = ${id}
      FOR UPDATE`
    if (!row) return undefined
    const { next, previous } = encrypt(row.secret_encrypted)
    const [updated] = await tx<Array<SubscriptionRow>>`
      UPDATE webhook_subscriptions SET secret_encrypted = ${next}, previous_secret_encrypted = ${previous},
        previous_secret_expires_at = ${previousExpiresAt}, updated_at = now()
      WHERE id = ${id} RETURNING *`
    return updated
  }) as Promise<SubscriptionRow | undefined>

export interface DateEventTimes {
  readonly check_in_time: string
  readonly check_out_time: string
}

export const readSettings = async (sql: Sql, tenantId: string): Promise<DateEventTimes> => {
  const [row] = await sql`
    SELECT to_char(check_in_event_time, 'HH24:MI') AS check_in_time, to_char(check_out_event_time, 'HH24:MI') AS check_out_time
    FROM tenant_settings WHERE tenant_id = ${tenantId}`
  return (row as unknown as DateEventTimes | undefined) ?? { check_in_time: "15:00", check_out_time: "12:00" }
}

export const writeSettings = async (sql: Sql, tenantId: string, s: DateEventTimes): Promise<void> => {
  await sql`
    INSERT INTO tenant_settings (tenant_id, check_in_event_time, check_out_event_time)
    VALUES (${tenantId}, ${s.check_in_time}::time, ${s.check_out_time}::time)
    ON CONFLICT (tenant_id) DO UPDATE SET check_in_event_time = EXCLUDED.check_in_event_time,
      check_out_event_time = EXCLUDED.check_out_event_time, updated_at = now()`
}
