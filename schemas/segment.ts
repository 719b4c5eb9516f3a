import { Schema } from "effect"
import { MessageChannels } from "./message.ts"
import { oneOf, SafeNumber, SafeString, Uuid } from "./common.ts"

// The segment language, version 1: a JSON condition tree over a tenant's contacts (issue 25, design note
// segments-broadcasts-privacy.md §1.5). This schema holds the shape and the size limits; whether a field exists, an
// operator fits its type and a value fits both is judged by core/segment/validate.ts, which knows the tenant's custom
// fields and names the path of every fault (a schema union would only say "no member matched").

export const MAX_DEPTH = 5
export const MAX_LEAVES = 50
export const MAX_LIST = 1_000
export const MAX_STRING = 500
export const MAX_DAYS = 36_500

const opt = Schema.optionalKey

const BoundedString = SafeString.check(
  Schema.makeFilter((s: string) => [...s].length <= MAX_STRING || `must be at most ${MAX_STRING} characters`)
)

/** A relative window: `{ "days": n }`, whole days. */
export const Days = Schema.Struct({
  days: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: MAX_DAYS }, { message: `must be an integer from 0 to ${MAX_DAYS}` }))
})
export type Days = typeof Days.Type

/** What a leaf compares with: typed loosely here, against its field and operator in validation. */
export const LeafValue = Schema.Union([
  BoundedString,
  SafeNumber,
  Schema.Boolean,
  Schema.Array(Schema.Union([BoundedString, SafeNumber]))
    .check(Schema.makeFilter((a) => a.length <= MAX_LIST || `at most ${MAX_LIST} values`)),
  Days
])
export type LeafValue = typeof LeafValue.Type

export const CountOps = ["eq", "neq", "gt", "gte", "lt", "lte"] as const
export type CountOp = typeof CountOps[number]

/** How many (stays, events) a quantifier needs; absent: at least one. */
export const CountCondition = Schema.Struct({
  op: oneOf(CountOps),
  value: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 1_000_000 }, { message: "must be an integer from 0 to 1000000" }))
})
export type CountCondition = typeof CountCondition.Type

export const ReachableCategories = ["marketing", "utility"] as const

export interface Leaf {
  readonly field: string
  readonly op: string
  readonly value?: LeafValue
}
export interface AllNode { readonly all: ReadonlyArray<SegmentNode> }
export interface AnyNode { readonly any: ReadonlyArray<SegmentNode> }
export interface NotNode { readonly not: SegmentNode }
export interface HasStayNode { readonly has_stay: { readonly where: SegmentNode; readonly count?: CountCondition } }
export interface PerformedNode {
  readonly performed: { readonly event: string; readonly within_last?: Days; readonly count?: CountCondition }
}
export interface ReceivedNode {
  readonly received: {
    readonly channel: "email" | "whatsapp"
    readonly broadcast_id?: string
    readonly journey_id?: string
    readonly negate?: boolean
  }
}
export interface ReachableNode { readonly reachable: { readonly channel: "email" | "whatsapp"; readonly category: "marketing" | "utility" } }

export type SegmentNode = AllNode | AnyNode | NotNode | Leaf | HasStayNode | PerformedNode | ReceivedNode | ReachableNode

const Node: Schema.Codec<SegmentNode> = Schema.suspend((): Schema.Codec<SegmentNode> => SegmentNodeSchema)

/** The keys that say what a node is: a node names exactly one kind (a leaf's kind being `field`, `op` and `value`). */
const KIND_KEYS = ["all", "any", "not", "field", "op", "value", "has_stay", "performed", "received", "reachable"] as const

/**
 * A node of one kind, refusing the keys of every other kind: `{ "all": [...], "any": [...] }` or a leaf with a `not`
 * beside it is an error naming the node, where a plain struct would keep one kind and silently drop the other (an
 * audience quietly wider than the one written).
 */
const OtherKind = Schema.Never.annotate({
  message: "belongs to another kind of node: one node is one of all, any, not, a leaf, has_stay, performed, received, reachable",
  description: "a key of another kind of node: never beside this one"
})
const kind = <F extends Schema.Struct.Fields>(fields: F) =>
  Schema.Struct({
    ...Object.fromEntries(KIND_KEYS.filter((k) => !(k in fields)).map((k) => [k, opt(OtherKind)])),
    ...fields
  } as F)

const SegmentNodeSchema: Schema.Codec<SegmentNode> = Schema.Union([
  kind({ all: Schema.Array(Node) }),
  kind({ any: Schema.Array(Node) }),
  kind({ not: Node }),
  kind({
    field: BoundedString.annotate({ description: "a catalogue field: contact.*, stay.* (inside has_stay), loyalty.*, custom.<field_key>" }),
    op: BoundedString,
    value: opt(LeafValue)
  }),
  kind({ has_stay: Schema.Struct({ where: Node, count: opt(CountCondition) }) }),
  kind({
    performed: Schema.Struct({
      event: SafeString.check(Schema.makeFilter((s: string) => (s.length >= 1 && s.length <= 100) || "must be 1 to 100 characters")),
      within_last: opt(Days),
      count: opt(CountCondition)
    })
  }),
  kind({
    received: Schema.Struct({ channel: oneOf(MessageChannels), broadcast_id: opt(Uuid), journey_id: opt(Uuid), negate: opt(Schema.Boolean) })
  }),
  kind({ reachable: Schema.Struct({ channel: oneOf(MessageChannels), category: oneOf(ReachableCategories) }) })
])

export type PathSegment = string | number
export interface LimitIssue { readonly path: ReadonlyArray<PathSegment>; readonly message: string }

/**
 * The size limits of a tree: depth (nodes on the longest path from `match` down, a quantifier's `where` one level
 * below it) at most 5, and at most 50 conditions (leaves and `performed`/`received`/`reachable` nodes). Each issue
 * names the first node past the limit. Shared by the schema and core/segment/validate.ts.
 */
export const limitIssues = (match: SegmentNode): ReadonlyArray<LimitIssue> => {
  const issues: Array<LimitIssue> = []
  let conditions = 0
  let depthReported = false
  const visit = (node: SegmentNode, path: ReadonlyArray<PathSegment>, depth: number): void => {
    if (depth > MAX_DEPTH) {
      if (!depthReported) issues.push({ path, message: `is nested deeper than ${MAX_DEPTH} levels` })
      depthReported = true
      return
    }
    for (const [child, at] of childrenOf(node, path)) visit(child, at, depth + 1)
    if (isCondition(node) && ++conditions === MAX_LEAVES + 1) {
      issues.push({ path, message: `is condition ${MAX_LEAVES + 1}: a definition holds at most ${MAX_LEAVES}` })
    }
  }
  visit(match, ["match"], 1)
  return issues
}

const isCondition = (node: SegmentNode): boolean =>
  "field" in node || "performed" in node || "received" in node || "reachable" in node

/** The nodes directly under a node, with their paths. */
export const childrenOf = (
  node: SegmentNode, path: ReadonlyArray<PathSegment>
): ReadonlyArray<readonly [SegmentNode, ReadonlyArray<PathSegment>]> => {
  if ("all" in node) return node.all.map((n, i) => [n, [...path, "all", i]] as const)
  if ("any" in node) return node.any.map((n, i) => [n, [...path, "any", i]] as const)
  if ("not" in node) return [[node.not, [...path, "not"]]]
  if ("has_stay" in node) return [[node.has_stay.where, [...path, "has_stay", "where"]]]
  return []
}

export const SegmentDefinition = Schema.Struct({
  version: Schema.Literal(1).annotate({ message: "must be 1" }),
  match: Node
}).check(Schema.makeFilter((def) => {
  const [first] = limitIssues(def.match)
  return first === undefined ? undefined : { path: first.path as Array<PathSegment>, issue: first.message }
})).annotate({
  identifier: "SegmentDefinition",
  description: "A segment condition tree, version 1: all / any / not, leaves { field, op, value }, has_stay, performed, received, reachable"
})
export type SegmentDefinition = typeof SegmentDefinition.Type
