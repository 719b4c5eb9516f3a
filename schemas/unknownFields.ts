import { type Schema, SchemaAST } from "effect"
import { fieldPath } from "./text.ts"

/** Where a key sits in a body: object keys and array indexes, from the body down. */
export type BodyPath = ReadonlyArray<string | number>

/** The warning an answer carries for a key of the request that is not a field of it (it was ignored). */
export interface UnknownFieldWarning {
  readonly code: "unknown_field" | "unknown_fields_omitted"
  readonly field: string
  readonly message: string
}

/** Past this many, the rest are counted in one last warning: an answer never grows with a hostile body's key count. */
export const MAX_UNKNOWN_FIELD_WARNINGS = 50

type Leaf = Exclude<SchemaAST.AST, SchemaAST.Union | SchemaAST.Suspend>

/** Nodes that accept any value: the walk stops there (free-form JSON, custom field values, metadata, payloads). */
const isFreeForm = (ast: Leaf): boolean =>
  ast._tag === "Unknown" || ast._tag === "Any" || ast._tag === "ObjectKeyword" || ast._tag === "Declaration"

/** The alternatives a value may match, unions and lazy schemas opened (optional and nullable wrappers are unions). */
const leavesOf = (alternatives: ReadonlyArray<SchemaAST.AST>): Array<Leaf> => {
  const out: Array<Leaf> = []
  const seen = new Set<SchemaAST.AST>()
  const stack = [...alternatives]
  while (stack.length > 0) {
    const ast = stack.pop()!
    if (seen.has(ast)) continue
    seen.add(ast)
    if (ast._tag === "Union") stack.push(...ast.types)
    else if (ast._tag === "Suspend") stack.push(ast.thunk())
    else out.push(ast)
  }
  return out
}

/** What a value may be, by the kinds of node the walk looks into. */
interface Shape {
  /** Some alternative takes any value: nothing under it is unknown. */
  readonly free: boolean
  readonly arrays: ReadonlyArray<SchemaAST.Arrays>
  readonly objects: ReadonlyArray<SchemaAST.Objects>
}

const shapeOfLeaves = (leaves: ReadonlyArray<Leaf>): Shape => ({
  free: leaves.some(isFreeForm),
  arrays: leaves.filter((l): l is SchemaAST.Arrays => l._tag === "Arrays"),
  objects: leaves.filter((l): l is SchemaAST.Objects => l._tag === "Objects")
})

// The walk runs on every write request's body, item by item in a batch: what it learns of a schema node (its shape,
// an object's keys) is kept per node, so a body costs a lookup per key rather than a scan of the schema per key.
const shapes = new WeakMap<SchemaAST.AST, Shape>()

const shapeOf = (alternatives: ReadonlyArray<SchemaAST.AST>): Shape => {
  if (alternatives.length !== 1) return shapeOfLeaves(leavesOf(alternatives))
  const ast = alternatives[0]!
  let shape = shapes.get(ast)
  if (shape === undefined) shapes.set(ast, shape = shapeOfLeaves(leavesOf(alternatives)))
  return shape
}

/** An object node's declared keys, and what any other key may hold (its index signatures). */
interface Keys {
  readonly properties: ReadonlyMap<PropertyKey, SchemaAST.AST>
  readonly other: ReadonlyArray<SchemaAST.AST>
}

const keysCache = new WeakMap<SchemaAST.Objects, Keys>()

const keysOf = (member: SchemaAST.Objects): Keys => {
  let keys = keysCache.get(member)
  if (keys === undefined) {
    const properties = new Map<PropertyKey, SchemaAST.AST>()
    // The first signature of a name wins, as a scan in declaration order found it.
    for (const p of member.propertySignatures) if (!properties.has(p.name)) properties.set(p.name, p.type)
    keys = { properties, other: member.indexSignatures.filter((s) => s.parameter._tag !== "Symbol").map((s) => s.type) }
    keysCache.set(member, keys)
  }
  return keys
}

const isPlainObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** A union of objects told apart by a literal (`type: "points"`): only the members the value's literals match. */
const matchingMembers = (members: ReadonlyArray<SchemaAST.Objects>, value: Record<string, unknown>) => {
  if (members.length === 1) return members
  const matching = members.filter((m) =>
    m.propertySignatures.every((p) =>
      p.type._tag !== "Literal" || !Object.hasOwn(value, p.name) || value[p.name as string] === p.type.literal
    )
  )
  return matching.length > 0 ? matching : members
}

/** What the key may hold in one object alternative: its property's type, else what its index signatures take. */
const typesOfKeyIn = (member: SchemaAST.Objects, key: string): ReadonlyArray<SchemaAST.AST> => {
  const keys = keysOf(member)
  const property = keys.properties.get(key)
  return property === undefined ? keys.other : [property]
}

/** What the key may hold in each object alternative that declares it (a property, else an index signature). */
const typesOfKey = (members: ReadonlyArray<SchemaAST.Objects>, key: string): ReadonlyArray<SchemaAST.AST> =>
  members.length === 1 ? typesOfKeyIn(members[0]!, key) : members.flatMap((m) => typesOfKeyIn(m, key))

/** What an array's item at `index` may be, in each array alternative. */
const typesOfItem = (arrays: ReadonlyArray<SchemaAST.Arrays>, index: number): ReadonlyArray<SchemaAST.AST> =>
  arrays.length === 1 && index >= arrays[0]!.elements.length
    ? arrays[0]!.rest
    : arrays.flatMap((a) => (index < a.elements.length ? [a.elements[index]!] : a.rest))

/** `path` is the walk's own stack (pushed and popped around each step down): `found` gets a copy. */
const walk = (
  alternatives: ReadonlyArray<SchemaAST.AST>, value: unknown, path: Array<string | number>, found: (path: BodyPath) => void
): void => {
  if (typeof value !== "object" || value === null) return
  const shape = shapeOf(alternatives)
  if (shape.free) return
  if (Array.isArray(value)) {
    if (shape.arrays.length === 0) return
    for (let i = 0; i < value.length; i++) {
      const types = typesOfItem(shape.arrays, i)
      if (types.length === 0) continue
      path.push(i)
      walk(types, value[i], path, found)
      path.pop()
    }
    return
  }
  if (shape.objects.length === 0 || !isPlainObject(value)) return
  const members = matchingMembers(shape.objects, value)
  for (const key of Object.keys(value)) {
    const types = typesOfKey(members, key)
    path.push(key)
    if (types.length === 0) found([...path])
    else walk(types, value[key], path, found)
    path.pop()
  }
}

/**
 * The keys of a JSON body that its payload schema does not know, as paths (`[["guests", 0, "phone_number"]]`), in
 * body order. The known keys come from the schema's encoded side (the JSON the client writes): struct properties,
 * array elements, every member of a union (a tagged union: the members its literals match), optional and nullable
 * wrappers, lazy schemas. A free-form part (a record of unknown values, a declared JSON value) knows every key under
 * it. A value of the wrong type is the decoder's business: nothing is reported under it here.
 */
export const unknownKeys = (schema: Schema.Top) => {
  const encoded = SchemaAST.toEncoded(schema.ast)
  return (body: unknown): Array<BodyPath> => {
    const out: Array<BodyPath> = []
    walk([encoded], body, [], (path) => out.push(path))
    return out
  }
}

/**
 * The unknown keys of a body as answer warnings `{ code: "unknown_field", field: "guests[0].phone_number" }`, named
 * as the validation errors name fields (and only by the key the caller sent: never its value). Beyond
 * `MAX_UNKNOWN_FIELD_WARNINGS`, one `unknown_fields_omitted` warning counts the rest.
 */
export const unknownFieldWarnings = (schema: Schema.Top) => {
  const keysOf = unknownKeys(schema)
  return (body: unknown): Array<UnknownFieldWarning> => {
    const paths = keysOf(body)
    const warnings = paths.slice(0, MAX_UNKNOWN_FIELD_WARNINGS).map((path): UnknownFieldWarning => ({
      code: "unknown_field",
      field: fieldPath(path),
      message: "is not a field of this request; it was ignored"
    }))
    if (paths.length > MAX_UNKNOWN_FIELD_WARNINGS) {
      const more = paths.length - MAX_UNKNOWN_FIELD_WARNINGS
      warnings.push({ code: "unknown_fields_omitted", field: "(body)", message: `${more} more unknown fields were ignored` })
    }
    return warnings
  }
}
