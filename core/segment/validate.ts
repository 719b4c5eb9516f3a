import { isUuid } from "../../schemas/common.ts"
import { childrenOf, CountOps, limitIssues, type PathSegment, type SegmentDefinition, type SegmentNode } from "../../schemas/segment.ts"
import type { CustomFieldDef } from "./catalog.ts"
import { compileLeaf } from "./leaf.ts"

// The checks a definition needs beyond its schema: fields known (custom ones by the tenant's definitions), operators
// fitting the field's type, values fitting both, stay fields only inside has_stay.where, and the size limits again
// (a definition built in code never went through the schema). Every fault names its path in the tree.

export interface DefinitionIssue { readonly path: string; readonly message: string }

/** `match.all[2].has_stay.where.any[0].op` */
export const formatPath = (path: ReadonlyArray<PathSegment>): string =>
  path.reduce<string>((s, p) => (typeof p === "number" ? `${s}[${p}]` : s === "" ? p : `${s}.${p}`), "")

// Validation does not depend on the time: relative windows are resolved when a definition is evaluated.
const ANY_TIME = new Date(0)

const CHANNELS = ["email", "whatsapp"]

export const validateDefinition = (
  def: SegmentDefinition, customFields: ReadonlyArray<CustomFieldDef>
): ReadonlyArray<DefinitionIssue> => {
  const issues: Array<DefinitionIssue> = []
  const add = (path: ReadonlyArray<PathSegment>, message: string) => issues.push({ path: formatPath(path), message })
  if (def.version !== 1) add(["version"], "must be 1")
  for (const i of limitIssues(def.match)) add(i.path, i.message)
  const count = (c: { op: string; value: number } | undefined, path: ReadonlyArray<PathSegment>) => {
    if (c === undefined) return
    if (!(CountOps as ReadonlyArray<string>).includes(c.op)) add([...path, "count", "op"], `must be one of: ${CountOps.join(", ")}`)
    if (!Number.isInteger(c.value) || c.value < 0) add([...path, "count", "value"], "must be a whole number, 0 or more")
  }
  const visit = (node: SegmentNode, path: ReadonlyArray<PathSegment>, inStay: boolean): void => {
    if ("field" in node) {
      const r = compileLeaf(node, customFields, ANY_TIME, inStay)
      if ("fault" in r) add([...path, r.fault.at], r.fault.message)
      return
    }
    if ("all" in node || "any" in node || "not" in node) {
      for (const [child, at] of childrenOf(node, path)) visit(child, at, inStay)
      return
    }
    const key = Object.keys(node)[0]!
    if (inStay) {
      add([...path, key], "is not allowed inside has_stay.where (only all, any, not and stay.* fields)")
      return
    }
    if ("has_stay" in node) {
      count(node.has_stay.count, [...path, "has_stay"])
      visit(node.has_stay.where, [...path, "has_stay", "where"], true)
    } else if ("performed" in node) {
      const p = node.performed
      if (typeof p.event !== "string" || p.event.length === 0 || p.event.length > 100) {
        add([...path, "performed", "event"], "must be an event type of 1 to 100 characters")
      }
      if (p.within_last !== undefined && !(Number.isInteger(p.within_last.days) && p.within_last.days >= 0)) {
        add([...path, "performed", "within_last", "days"], "must be a whole number of days, 0 or more")
      }
      count(p.count, [...path, "performed"])
    } else if ("received" in node) {
      const r = node.received
      if (!CHANNELS.includes(r.channel)) add([...path, "received", "channel"], "must be email or whatsapp")
      if (r.broadcast_id !== undefined && !isUuid(r.broadcast_id)) add([...path, "received", "broadcast_id"], "must be a UUID")
      if (r.journey_id !== undefined && !isUuid(r.journey_id)) add([...path, "received", "journey_id"], "must be a UUID")
    } else if ("reachable" in node) {
      if (!CHANNELS.includes(node.reachable.channel)) add([...path, "reachable", "channel"], "must be email or whatsapp")
      if (!["marketing", "utility"].includes(node.reachable.category)) {
        add([...path, "reachable", "category"], "must be marketing or utility")
      }
    } else {
      add(path, "is not a segment node (all, any, not, a { field, op, value } leaf, has_stay, performed, received, reachable)")
    }
  }
  visit(def.match, ["match"], false)
  return issues
}
