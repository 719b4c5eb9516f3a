/**
 * Whose data, and which of its two worlds: every row, envelope and query is confined to one tenant and one mode
 * (sandbox keys see only sandbox data, live keys only live data).
 */
export interface TenantScope {
  readonly tenant_id: string
  readonly sandbox: boolean
}
