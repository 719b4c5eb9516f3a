import type { ActionLimit, ActionRule } from "../../schemas/loyalty.ts"

/**
 * The limits of the common action types when the programme names no rule for them (the design note's examples): an app
 * is downloaded once, a review or a survey is about one thing (its scope_key, e.g. the reservation). Other types are
 * unlimited until the programme says otherwise.
 */
const defaultLimits: Readonly<Record<string, ActionLimit>> = { app_download: "once", review: "once_per_scope", survey: "once_per_scope" }

export type ActionDecision =
  | { readonly ok: true; readonly points: number; readonly limit: ActionLimit; readonly scope: string | undefined }
  | { readonly ok: false; readonly details: Record<string, Array<string>> }

/**
 * What an /actions request earns and the claim it takes: the request's points, else the rule's; `scope` is the claim's
 * key ('' for once per member, the scope_key for once per scope, undefined for no claim).
 */
export const decideAction = (
  rules: ReadonlyArray<ActionRule>, req: { readonly action_type: string; readonly points?: number | undefined; readonly scope_key?: string | undefined }
): ActionDecision => {
  const rule = rules.find((r) => r.action_type === req.action_type)
  const points = req.points ?? rule?.points
  if (points === undefined) return { ok: false, details: { points: [`is required: the programme has no rule for action_type ${JSON.stringify(req.action_type)}`] } }
  const limit = rule?.per_member ?? defaultLimits[req.action_type] ?? "unlimited"
  if (limit === "once_per_scope" && req.scope_key === undefined) {
    return { ok: false, details: { scope_key: [`is required: ${req.action_type} is earned once per scope_key (e.g. the reservation reviewed)`] } }
  }
  return { ok: true, points, limit, scope: limit === "once" ? "" : limit === "once_per_scope" ? req.scope_key : undefined }
}
