import { actAsTenant, type Sql } from "../db/Database.ts"
import type { PrivacyStore, Subject } from "./store.ts"
import { PrivacyStores } from "./stores/registry.ts"

export const EXPORT_FORMAT = "gep.privacy.export/v1"

/** The subject's document (GDPR Art. 15 and 20): one section per store, plain JSON, nothing of another guest. */
export interface ExportDocument {
  readonly format: typeof EXPORT_FORMAT
  readonly generated_at: string
  readonly subject: { readonly contact_ids: ReadonlyArray<string> }
  readonly stores: Readonly<Record<string, ReadonlyArray<unknown>>>
}

/**
 * Reads every store in one read-only snapshot of the subject's tenant (the sections agree with each other). `at` is
 * the document's time (the caller's clock).
 */
export const exportSubject = async (
  sql: Sql, subject: Subject, at: Date = new Date(), stores: ReadonlyArray<PrivacyStore> = PrivacyStores
): Promise<ExportDocument> => {
  const sections = await sql.begin("ISOLATION LEVEL REPEATABLE READ READ ONLY", async (tx) => {
    await actAsTenant(tx, subject.scope.tenant_id)
    const out: Record<string, ReadonlyArray<unknown>> = {}
    for (const store of stores) out[store.store] = await store.export(tx, subject)
    return out
  })
  return { format: EXPORT_FORMAT, generated_at: at.toISOString(), subject: { contact_ids: [...subject.contactIds] }, stores: sections }
}
