import { Effect } from "effect"
import { customFieldDefs } from "../../core/segment/customFields.ts"
import { validateDefinition } from "../../core/segment/validate.ts"
import type { SegmentDefinition } from "../../schemas/segment.ts"
import * as Actor from "../runtime/Actor.ts"
import { type BroadcastRow, segmentDefinitions } from "./repository.ts"

/**
 * The audience a broadcast snapshots, fixed when it starts: its own definition or its segment's as saved now, and its
 * exclusions' definitions, each checked against the account's custom fields as they are now. A segment gone or a
 * definition that no longer checks fails the broadcast with the reason, before anyone is taken.
 */
export const resolveAudience = Effect.fn("BroadcastActor.resolveAudience")(function*(b: BroadcastRow) {
  const { scope } = yield* Effect.service(Actor.GroupTransaction)
  const ids = [...(b.audience.segment_id === undefined ? [] : [b.audience.segment_id]), ...(b.audience.exclude_segment_ids ?? [])]
  const [saved, customFields] = yield* Actor.query((tx) => Promise.all([
    ids.length === 0 ? Promise.resolve(new Map<string, SegmentDefinition>()) : segmentDefinitions(tx, scope, ids),
    customFieldDefs(tx, scope.tenant_id, scope.sandbox)
  ]))
  const missing = ids.filter((id) => !saved.has(id))
  if (missing.length > 0) return { failed: `segment_not_found: ${missing.join(", ")}` } as const
  const definition = b.audience.definition ?? saved.get(b.audience.segment_id!)!
  const exclusions = (b.audience.exclude_segment_ids ?? []).map((id) => saved.get(id)!)
  if ([definition, ...exclusions].some((d) => validateDefinition(d, customFields).length > 0)) return { failed: "audience_invalid" } as const
  return { definition, exclusions } as const
})
