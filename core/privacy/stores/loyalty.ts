import { randomUUID } from "node:crypto"
import type { Tx } from "../../db/Database.ts"
import type { PrivacyStore } from "../store.ts"
import { memberIdsOf } from "./members.ts"
import { INTERNAL, tagged } from "./rows.ts"

// The loyalty programme keeps its ledger (the points it owes are a liability the hotel group accounts for), without
// the person: the member row loses its email, names and phone, and it and every row of its ledger (lots, entries,
// holds, redemptions, bids, action claims, an owned household) move to a new random member id. The old id is UUIDv5
// of the email (core/loyalty/memberId.ts): kept, the email would find the ledger again, and a later enrolment of the
// address would take the old balance back. A household membership is the person's and goes.

/** One member moved to `to` and stripped of what names it, in the caller's transaction. */
const anonymise = async (tx: Tx, scope: { tenant_id: string; sandbox: boolean }, from: string, to: string) => {
  const { tenant_id: t, sandbox: s } = scope
  // A fingerprint (jsonb) and a reason may quote the member id they were made for.
  const rekeyed = (column: "fingerprint") =>
    tx`CASE WHEN ${tx(column)} IS NULL THEN NULL ELSE replace(${tx(column)}::text, ${from}, ${to})::jsonb END`
  // The ledger's append-only trigger lets this transaction re-key entries (migration 038).
  await tx`SELECT set_config('app.privacy_erasure', 'on', true)`
  await tx`
    INSERT INTO loyalty_members SELECT (jsonb_populate_record(m, jsonb_build_object('member_id', ${to}::uuid, 'email', ${`erased:${to}`}::text,
      'first_name', NULL, 'last_name', NULL, 'phone', NULL, 'status', 'unsubscribed', 'updated_at', now()))).*
    FROM loyalty_members m WHERE m.member_id = ${from} AND m.tenant_id = ${t} AND m.sandbox = ${s}`
  await tx`UPDATE loyalty_lots SET member_id = ${to} WHERE member_id = ${from} AND tenant_id = ${t} AND sandbox = ${s}`
  await tx`UPDATE loyalty_entries SET member_id = ${to}, fingerprint = ${rekeyed("fingerprint")}, reason = replace(reason, ${from}, ${to})
    WHERE member_id = ${from} AND tenant_id = ${t} AND sandbox = ${s}`
  // A household's transfer_in entry quotes the contributing member's id.
  await tx`UPDATE loyalty_entries SET fingerprint = ${rekeyed("fingerprint")}, reason = replace(reason, ${from}, ${to})
    WHERE tenant_id = ${t} AND sandbox = ${s} AND member_id IN (SELECT household_id FROM loyalty_households WHERE tenant_id = ${t} AND sandbox = ${s})
      AND (fingerprint::text LIKE ${`%${from}%`} OR reason LIKE ${`%${from}%`})`
  await tx`UPDATE loyalty_holds SET member_id = ${to}, fingerprint = ${rekeyed("fingerprint")}
    WHERE member_id = ${from} AND tenant_id = ${t} AND sandbox = ${s}`
  await tx`UPDATE loyalty_refunds SET reason = NULL
    WHERE tenant_id = ${t} AND reason IS NOT NULL AND hold_id IN (SELECT hold_id FROM loyalty_holds WHERE member_id = ${to})`
  await tx`UPDATE loyalty_redemptions SET member_id = ${to}, notes = NULL WHERE member_id = ${from} AND tenant_id = ${t} AND sandbox = ${s}`
  await tx`UPDATE loyalty_bids SET member_id = ${to} WHERE member_id = ${from} AND tenant_id = ${t}`
  await tx`UPDATE loyalty_action_claims SET member_id = ${to} WHERE member_id = ${from} AND tenant_id = ${t} AND sandbox = ${s}`
  await tx`UPDATE loyalty_households SET owner_member_id = ${to} WHERE owner_member_id = ${from} AND tenant_id = ${t} AND sandbox = ${s}`
  await tx`DELETE FROM loyalty_household_members WHERE member_id = ${from} AND tenant_id = ${t}`
  await tx`DELETE FROM loyalty_members WHERE member_id = ${from} AND tenant_id = ${t} AND sandbox = ${s}`
}

export const loyaltyStore: PrivacyStore = {
  store: "loyalty",
  action: "anonymised",
  tables: [
    "loyalty_members", "loyalty_lots", "loyalty_entries", "loyalty_entry_lots", "loyalty_holds", "loyalty_hold_lots",
    "loyalty_refunds", "loyalty_redemptions", "loyalty_bids", "loyalty_action_claims", "loyalty_households", "loyalty_household_members"
  ],
  holds: "member (email, names, phone, balances, tier totals), points ledger, lots, holds, redemptions (notes), bids, household membership",
  retention: "kept (the programme's liability): an erasure keeps the amounts under a new random member id without email, names or phone, and removes household membership",
  // One member per row of the batch: its whole ledger moves in one transaction (the balance checks hold at commit).
  erase: async (tx, subject, limit) => {
    const members = (await memberIdsOf(tx, subject)).slice(0, limit)
    for (const member of members) await anonymise(tx, subject.scope, member, randomUUID())
    return members.length
  },
  export: async (tx, subject) => {
    const members = await memberIdsOf(tx, subject)
    if (members.length === 0) return []
    const [profiles, entries, holds, redemptions, bids, households] = await Promise.all([
      tx`SELECT (to_jsonb(m) - ${INTERNAL}::text[]) || jsonb_build_object('tier', (SELECT t.tier_name FROM loyalty_member_tier(m.member_id) t)) AS row
        FROM loyalty_members m WHERE m.member_id = ANY(${members}::uuid[]) ORDER BY m.joined_at`,
      tx`SELECT to_jsonb(e) - ${[...INTERNAL, "fingerprint", "op"]}::text[] AS row FROM loyalty_entries e
        WHERE e.member_id = ANY(${members}::uuid[]) ORDER BY e.member_id, e.seq`,
      tx`SELECT to_jsonb(h) - ${[...INTERNAL, "fingerprint"]}::text[] AS row FROM loyalty_holds h
        WHERE h.member_id = ANY(${members}::uuid[]) ORDER BY h.created_at`,
      tx`SELECT to_jsonb(r) - ${INTERNAL}::text[] AS row FROM loyalty_redemptions r WHERE r.member_id = ANY(${members}::uuid[]) ORDER BY r.created_at`,
      tx`SELECT to_jsonb(b) - ${INTERNAL}::text[] AS row FROM loyalty_bids b WHERE b.member_id = ANY(${members}::uuid[]) ORDER BY b.placed_at`,
      // The membership, not the household's other members.
      tx`SELECT jsonb_build_object('household_id', hm.household_id, 'name', h.name, 'role', hm.role, 'joined_at', hm.joined_at) AS row
        FROM loyalty_household_members hm JOIN loyalty_households h ON h.household_id = hm.household_id
        WHERE hm.member_id = ANY(${members}::uuid[])`
    ])
    return [...tagged("loyalty_members", profiles), ...tagged("loyalty_entries", entries), ...tagged("loyalty_holds", holds),
      ...tagged("loyalty_redemptions", redemptions), ...tagged("loyalty_bids", bids), ...tagged("loyalty_household_members", households)]
  }
}
