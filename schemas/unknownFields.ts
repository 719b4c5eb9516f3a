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

const isPlainObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** A union of objects told apart by a literal (`type: "points"`): only the members the value's literals match. */
const matchingMembers = (members: ReadonlyArray<SchemaAST.Objects>, value: Record<string, unknown>) => {
  const matching = members.filter((m) =>
    m.propertySignatures.every((p) =>
      p.type._tag !== "Literal" || !Object.hasOwn(value, p.name) || value[p.name as string] === p.type.literal
    )
  )
  return matching.length > 0 ? matching : members
}

/** What the key may hold in each object alternative that declares it (a property, else an index signature). */
const typesOfKey = (members: ReadonlyArray<SchemaAST.Objects>, key: string): Array<SchemaAST.AST> =>
  members.flatMap((m) => {
    const property = m.propertySignatures.find((p) => p.name === key)
    if (property !== undefined) return [property.type]
    return m.indexSignatures.filter((s) => s.parameter._tag !== "Symbol").map((s) => s.type)
  })

const walk = (alternatives: ReadonlyArray<SchemaAST.AST>, value: unknown, path: BodyPath, found: (path: BodyPath) => void): void => {
  if (typeof value !== "object" || value === null) return
  const leaves = leavesOf(alternatives)
  if (leaves.some(isFreeForm)) return
  if (Array.isArray(value)) {
    const arrays = leaves.filter((l): l is SchemaAST.Arrays => l._tag === "Arrays")
    if (arrays.length === 0) return
    value.forEach((item, i) => {
      const types = arrays.flatMap((a) => (i < a.elements.length ? [a.elements[i]!] : a.rest))
      if (types.length > 0) walk(types, item, [...path, i], found)
    })
    return
  }
  const objects = leaves.filter((l): l is SchemaAST.Objects => l._tag === "Objects")
  if (objects.length === 0 || !isPlainObject(value)) return
  const members = matchingMembers(objects, value)
  for (const key of Object.keys(value)) {
    const types = typesOfKey(members, key)
    if (types.length === 0) found([...path, key])
    else walk(types, value[key], [...path, key], found)
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
