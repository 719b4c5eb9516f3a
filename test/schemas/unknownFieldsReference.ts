import { type Schema, SchemaAST } from "effect"
import type { BodyPath } from "../../schemas/unknownFields.ts"

// The first, direct form of the unknown-key walk (schemas/unknownFields.ts before its per-node caches): it scans the
// schema for every key of the body. Kept as the reference the cached walk is tested against, key for key.

type Leaf = Exclude<SchemaAST.AST, SchemaAST.Union | SchemaAST.Suspend>

const isFreeForm = (ast: Leaf): boolean =>
  ast._tag === "Unknown" || ast._tag === "Any" || ast._tag === "ObjectKeyword" || ast._tag === "Declaration"

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

const matchingMembers = (members: ReadonlyArray<SchemaAST.Objects>, value: Record<string, unknown>) => {
  const matching = members.filter((m) =>
    m.propertySignatures.every((p) =>
      p.type._tag !== "Literal" || !Object.hasOwn(value, p.name) || value[p.name as string] === p.type.literal
    )
  )
  return matching.length > 0 ? matching : members
}

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

export const referenceUnknownKeys = (schema: Schema.Top) => {
  const encoded = SchemaAST.toEncoded(schema.ast)
  return (body: unknown): Array<BodyPath> => {
    const out: Array<BodyPath> = []
    walk([encoded], body, [], (path) => out.push(path))
    return out
  }
}
