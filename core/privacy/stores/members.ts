import type { Tx } from "../../db/Database.ts"
import type { Subject } from "../store.ts"
import { type Needles, needlesOf, withIds } from "./needles.ts"

/**
 * The subject's loyalty members (not households): keyed by email, so found by the subject's emails, and by its phones
 * (the same person enrolled under another address). The loyalty store gives them a new id without the email, so the
 * stores keyed by member (SSO, rate limits) come before it.
 */
export const memberIdsOf = async (tx: Tx, subject: Subject): Promise<Array<string>> => {
  const n = needlesOf(subject)
  if (n.emails.length === 0 && n.phones.length === 0) return []
  const rows = await tx`
    SELECT member_id FROM loyalty_members WHERE tenant_id = ${subject.scope.tenant_id} AND sandbox = ${subject.scope.sandbox}
      AND kind = 'member' AND (email = ANY(${n.emails}::text[]) OR phone = ANY(${n.phones}::text[]))`
  return rows.map((r) => r.member_id as string)
}

/** The subject's needles and its member ids: what names it in copies of envelopes, answers and webhook bodies. */
export const copyNeedlesOf = async (tx: Tx, subject: Subject): Promise<Needles> => withIds(needlesOf(subject), await memberIdsOf(tx, subject))
