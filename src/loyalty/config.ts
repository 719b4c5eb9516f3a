import type { Tx } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { ProgramRequest, RewardRequest, TiersRequest } from "../../schemas/loyalty.ts"

// Programme, tiers and rewards are account configuration, not actor-owned state (like custom field definitions):
// written at the ingress, each in one transaction confined to the tenant. Member actors read them inside their own transactions.

export const writeProgram = (tx: Tx, s: TenantScope, r: ProgramRequest) =>
  tx`INSERT INTO loyalty_programs (tenant_id, sandbox, currency, points_per_unit, points_per_night, pending_days, expiry_months, point_value, action_rules)
    VALUES (${s.tenant_id}, ${s.sandbox}, ${r.currency.toUpperCase()}, ${r.points_per_unit}, ${r.points_per_night ?? 0}, ${r.pending_days ?? 0},
      ${r.expiry_months ?? null}, ${r.point_value}, ${tx.json((r.action_rules ?? []) as never)})
    ON CONFLICT (tenant_id, sandbox) DO UPDATE SET currency = EXCLUDED.currency, points_per_unit = EXCLUDED.points_per_unit,
      points_per_night = EXCLUDED.points_per_night, pending_days = EXCLUDED.pending_days, expiry_months = EXCLUDED.expiry_months,
      point_value = EXCLUDED.point_value, action_rules = EXCLUDED.action_rules, updated_at = now()`

/** Problems of a programme's action rules (field → messages): one rule per action type. */
export const actionRuleIssues = (r: ProgramRequest): Record<string, Array<string>> => {
  const issues: Record<string, Array<string>> = {}
  const seen = new Map<string, number>()
  ;(r.action_rules ?? []).forEach((rule, i) => {
    if (seen.has(rule.action_type)) issues[`action_rules[${i}].action_type`] = [`repeats rule [${seen.get(rule.action_type)}]`]
    seen.set(rule.action_type, i)
  })
  return issues
}

/** Problems of a tier list as a whole (field → messages); empty when it is consistent. */
export const tierIssues = (tiers: TiersRequest): Record<string, Array<string>> => {
  const issues: Record<string, Array<string>> = {}
  const seen = new Map<string, number>()
  tiers.forEach((t, i) => {
    if (seen.has(t.tier_slug)) issues[`[${i}].tier_slug`] = [`repeats tier [${seen.get(t.tier_slug)}]`]
    seen.set(t.tier_slug, i)
    const before = tiers[i - 1]
    if (before !== undefined && before.basis === t.basis && t.threshold <= before.threshold) {
      issues[`[${i}].threshold`] = ["must be above the threshold of the tier before it (tiers are listed lowest first)"]
    }
  })
  return issues
}

/** Replaces the tiers; their order in the request is their rank (lowest first). */
export const replaceTiers = (tx: Tx, s: TenantScope, tiers: TiersRequest) =>
  (async () => {
    await tx`DELETE FROM loyalty_tiers WHERE tenant_id = ${s.tenant_id} AND sandbox = ${s.sandbox}`
    for (const [rank, t] of tiers.entries()) {
      await tx`INSERT INTO loyalty_tiers (tenant_id, sandbox, tier_slug, tier_name, rank, threshold, basis, "window", earn_multiplier)
        VALUES (${s.tenant_id}, ${s.sandbox}, ${t.tier_slug}, ${t.tier_name.trim()}, ${rank + 1}, ${t.threshold}, ${t.basis},
          ${t.window ?? "lifetime"}, ${t.earn_multiplier ?? 1})`
    }
  })()

export const insertReward = (tx: Tx, s: TenantScope, rewardId: string, r: RewardRequest) =>
  tx`INSERT INTO loyalty_rewards (reward_id, tenant_id, sandbox, name, type, points_cost, auto_fulfill, stock_remaining)
    VALUES (${rewardId}, ${s.tenant_id}, ${s.sandbox}, ${r.name.trim()}, ${r.type}, ${r.points_cost}, ${r.auto_fulfill}, ${r.stock ?? null})`
