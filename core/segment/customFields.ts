import type { CustomFieldDef, SqlTag } from "./catalog.ts"

/** The account's custom field definitions in a mode: what `custom.<key>` fields are and how they are typed. */
export const customFieldDefs = async (tx: SqlTag, tenantId: string, sandbox: boolean): Promise<ReadonlyArray<CustomFieldDef>> =>
  (await tx`SELECT field_key, field_type, options FROM custom_field_definitions
    WHERE tenant_id = ${tenantId} AND sandbox = ${sandbox}`) as unknown as ReadonlyArray<CustomFieldDef>
