import fc from "fast-check"
import { resolveRef, type JsonSchema } from "./jsonSchema.ts"

/**
 * fast-check arbitraries of request bodies and parameters built from an OpenAPI 3.1 document (the subset HttpApi
 * emits), so a fuzz test covers every documented route, those added later included, without a line per route.
 * `hints` give realistic values by field name (a known hotel code, a valid phone...): without them nearly every body
 * would stop at the first check, and the paths behind it (normalisers, actors, the database) would never be reached.
 */
export type Hints = Readonly<Record<string, fc.Arbitrary<unknown>>>

type Node = Record<string, unknown>

const genericString = fc.oneof({ arbitrary: fc.string({ unit: "grapheme", minLength: 1, maxLength: 24 }), weight: 9 }, { arbitrary: fc.constant(""), weight: 1 })
const freeFormValue = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 })

/** How often one reference may open on the way down: a recursive schema (a segment's condition tree) ends there. */
const MAX_REF_DEPTH = 2

export const arbitraryOf = (
  schema: JsonSchema | undefined, doc: unknown, hints: Hints, name = "", within: ReadonlyArray<string> = []
): fc.Arbitrary<unknown> => {
  if (schema === undefined || schema === true) return fc.jsonValue({ maxDepth: 2 })
  if (schema === false) return fc.constant(null)
  let node = schema as Node
  if (typeof node.$ref === "string") {
    if (within.filter((r) => r === node.$ref).length >= MAX_REF_DEPTH) return hints[name] ?? fc.constant({})
    within = [...within, node.$ref]
    node = resolveRef(doc, node.$ref) as Node
  }
  const hint = hints[name]
  const fragments = (node.allOf ?? []) as Array<Node>
  const has = (k: string) => node[k] !== undefined || fragments.some((f) => f[k] !== undefined)
  const realistic = (arb: fc.Arbitrary<unknown>) => (hint ? fc.oneof({ arbitrary: hint, weight: 19 }, { arbitrary: arb, weight: 1 }) : arb)
  if (has("x-free-form")) return realistic(freeFormValue)
  if (Array.isArray(node.enum)) return fc.constantFrom(...(node.enum as Array<unknown>))
  if ("const" in node) return fc.constant(node.const)
  for (const k of ["anyOf", "oneOf"] as const) {
    // The null of a nullable field is one choice in five: a value exercises more than its absence.
    if (Array.isArray(node[k])) {
      return realistic(fc.oneof(...(node[k] as Array<Node>).map((b) => ({ arbitrary: arbitraryOf(b, doc, hints, name, within), weight: b.type === "null" ? 1 : 4 }))))
    }
  }
  const types = Array.isArray(node.type) ? node.type : [node.type]
  return realistic(fc.oneof(...types.map((type) => {
    switch (type) {
      case "string":
        return genericString
      case "integer":
      case "number": {
        const min = (node.minimum ?? node.exclusiveMinimum ?? -1e6) as number
        const max = (node.maximum ?? node.exclusiveMaximum ?? 1e6) as number
        return type === "integer"
          ? fc.integer({ min: Math.max(min, -2_147_483_648), max: Math.min(max, 2_147_483_647) })
          : fc.double({ min, max, noNaN: true, noDefaultInfinity: true })
      }
      case "boolean":
        return fc.boolean()
      case "null":
        return fc.constant(null)
      case "array":
        return fc.oneof(
          { arbitrary: fc.array(arbitraryOf(node.items as JsonSchema | undefined, doc, hints, name, within), { minLength: 1, maxLength: 3 }), weight: 9 },
          { arbitrary: fc.constant([]), weight: 1 }
        )
      case "object": {
        const properties = (node.properties ?? {}) as Record<string, JsonSchema>
        if (Object.keys(properties).length === 0 && typeof node.additionalProperties === "object") {
          // A record: keys as its propertyNames allow, values of its declared schema.
          const names = node.propertyNames as { pattern?: string } | undefined
          const keys = names?.pattern ? fc.stringMatching(new RegExp(names.pattern)) : fc.string({ minLength: 1, maxLength: 12 })
          return fc.dictionary(keys, arbitraryOf(node.additionalProperties as JsonSchema, doc, hints, "", within), { maxKeys: 4 })
        }
        if (Object.keys(properties).length === 0) return freeFormValue
        const required = (node.required ?? []) as Array<string>
        return fc.record(
          Object.fromEntries(Object.entries(properties).map(([k, s]) => [k, arbitraryOf(s, doc, hints, k, within)])),
          { requiredKeys: required }
        )
      }
      default:
        return fc.jsonValue({ maxDepth: 2 })
    }
  })))
}

/** The classes and a few more, applied to one place of a generated value. */
export const MUTATIONS = [
  "none", "nul", "surrogate", "nul-key", "surrogate-key", "huge-number", "negative-huge", "tiny-number", "deep", "many-keys",
  "wrong-type", "extra-key", "oversize", "proto-key", "proto-rename"
] as const

/**
 * Keys that name what every plain object inherits: a handler that indexes a plain object by a key from the request
 * (`counts[key] ??= ...`, `details[field].push`) reads Object.prototype's member instead of nothing, or (`__proto__`,
 * `constructor.prototype`) writes through to it.
 */
export const PROTOTYPE_KEYS: ReadonlyArray<string> = [
  // The ones that break or pollute first (a sweep that stops early still tries them), then every other member.
  ...new Set(["__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "valueOf", ...Object.getOwnPropertyNames(Object.prototype)])
]
/** What a prototype-named key carries: a string where a function is expected, and the pollution payloads. */
const PROTOTYPE_VALUES: ReadonlyArray<unknown> = ["x", { polluted: "yes" }, { prototype: { polluted: "yes" } }, 1, null, []]
/** Sets `key` as an own property, `__proto__` included (an assignment would set the object's prototype instead). */
const defineKey = (o: Record<string, unknown>, key: string, value: unknown) =>
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true })
export type Mutation = typeof MUTATIONS[number]

/** Replaced, once the body is JSON text, by an object nested 5,000 levels (built as text: no recursion anywhere). */
export const DEEP = "@@fuzz-deep@@"
const DEEP_JSON = '{"a":'.repeat(5_000) + "1" + "}".repeat(5_000)
/** Replaced by a string just over the largest body limit of the API (5 MiB). */
export const OVERSIZE = "@@fuzz-oversize@@"

const isText = (p: Place) => (typeof p.value === "string" || p.value === null) && p.parent !== undefined

type Place = { readonly parent: Record<string, unknown> | Array<unknown> | undefined; readonly key: string | number; readonly value: unknown }

const placesOf = (root: unknown): Array<Place> => {
  const out: Array<Place> = [{ parent: undefined, key: "", value: root }]
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.forEach((x, i) => (out.push({ parent: v, key: i, value: x }), walk(x)))
    else if (typeof v === "object" && v !== null) {
      for (const [k, x] of Object.entries(v)) {
        out.push({ parent: v as Record<string, unknown>, key: k, value: x })
        walk(x)
      }
    }
  }
  walk(root)
  return out
}

const set = (p: Place, root: unknown, value: unknown): unknown => {
  if (p.parent === undefined) return value
  ;(p.parent as Record<string | number, unknown>)[p.key] = value
  return root
}
const renameKey = (p: Place, root: unknown, to: (k: string) => string): unknown => {
  if (p.parent === undefined || Array.isArray(p.parent)) return root
  const parent = p.parent as Record<string, unknown>
  delete parent[p.key as string]
  defineKey(parent, to(p.key as string), p.value)
  return root
}

/** `value` (a fresh copy) with `mutation` applied at the place `pick` selects among those it fits. */
export const mutate = (value: unknown, mutation: Mutation, pick: number): unknown => {
  const root = structuredClone(value)
  const places = placesOf(root)
  const choose = (fits: (p: Place) => boolean) => {
    const candidates = places.filter(fits)
    return candidates.length === 0 ? undefined : candidates[pick % candidates.length]
  }
  const isObject = (v: unknown) => typeof v === "object" && v !== null && !Array.isArray(v)
  const at = (fits: (p: Place) => boolean, change: (p: Place) => unknown) => {
    const p = choose(fits)
    return p === undefined ? root : change(p)
  }
  switch (mutation) {
    case "none":
      return root
    // A null leaf counts as a string place: most optional text fields are nullable, and null is often what was generated.
    case "nul":
      return at(isText, (p) => set(p, root, `${(p.value as string | null) ?? ""}\u0000x`))
    case "surrogate":
      return at(isText, (p) => set(p, root, `${(p.value as string | null) ?? ""}\ud800`))
    case "nul-key":
      return at((p) => typeof p.key === "string" && p.parent !== undefined, (p) => renameKey(p, root, (k) => `${k}\u0000`))
    case "surrogate-key":
      return at((p) => typeof p.key === "string" && p.parent !== undefined, (p) => renameKey(p, root, (k) => `\udc00${k}`))
    case "huge-number":
      return at((p) => typeof p.value === "number", (p) => set(p, root, 1.2345678901234568e+29))
    case "negative-huge":
      return at((p) => typeof p.value === "number", (p) => set(p, root, -1.7976931348623157e+308))
    case "tiny-number":
      return at((p) => typeof p.value === "number", (p) => set(p, root, 5e-324))
    case "deep":
      return at((p) => isObject(p.value), (p) => set(p, root, DEEP))
    case "many-keys":
      return at((p) => isObject(p.value), (p) => set(p, root, Object.fromEntries(Array.from({ length: 3_000 }, (_, i) => [`k${i}`, i]))))
    case "wrong-type":
      return at(() => true, (p) => set(p, root, typeof p.value === "string" ? 7 : typeof p.value === "object" ? "text" : { nested: [] }))
    case "extra-key":
      return at((p) => isObject(p.value), (p) => ((p.value as Record<string, unknown>)["unexpected\u0000key"] = "\ud800", root))
    case "oversize":
      return isObject(root) ? { ...(root as object), padding: OVERSIZE } : root
    // A prototype-named key added beside the object's own (each name with each payload as `pick` cycles), or one of its
    // keys renamed to a prototype name (the value then has the type the field wanted).
    case "proto-key":
      return at((p) => isObject(p.value), (p) => (defineKey(p.value as Record<string, unknown>,
        PROTOTYPE_KEYS[pick % PROTOTYPE_KEYS.length]!, PROTOTYPE_VALUES[pick % PROTOTYPE_VALUES.length]), root))
    case "proto-rename":
      return at((p) => typeof p.key === "string" && p.parent !== undefined, (p) => renameKey(p, root, () => PROTOTYPE_KEYS[pick % PROTOTYPE_KEYS.length]!))
  }
}

/** How many places of `value` the mutation can be applied at (its `pick` cycles through them in order). */
export const placesFor = (value: unknown, mutation: Mutation): number => {
  const places = placesOf(value)
  const isObject = (v: unknown) => typeof v === "object" && v !== null && !Array.isArray(v)
  switch (mutation) {
    case "nul":
    case "surrogate":
      return places.filter(isText).length
    case "nul-key":
    case "surrogate-key":
    case "proto-rename":
      return places.filter((p) => typeof p.key === "string" && p.parent !== undefined).length
    // Every object place, with each prototype name once.
    case "proto-key":
      return places.filter((p) => isObject(p.value)).length * PROTOTYPE_KEYS.length
    case "huge-number":
    case "negative-huge":
    case "tiny-number":
      return places.filter((p) => typeof p.value === "number").length
    case "deep":
    case "many-keys":
    case "extra-key":
      return places.filter((p) => isObject(p.value)).length
    default:
      return 1
  }
}

/** The JSON text of a (mutated) body: the markers expanded. */
export const bodyText = (value: unknown): string =>
  JSON.stringify(value)
    .replace(JSON.stringify(DEEP), DEEP_JSON)
    .replace(JSON.stringify(OVERSIZE), () => JSON.stringify("x".repeat(5 * 1024 * 1024 + 1)))

/** A path or query value as sent: NUL percent-encoded, an unpaired surrogate as the (invalid) UTF-8 of its code. */
export const urlEncode = (s: string): string =>
  [...s].map((ch) => {
    const code = ch.charCodeAt(0)
    return ch.length === 1 && code >= 0xd800 && code <= 0xdfff
      ? `%${(0xe0 | (code >> 12)).toString(16)}%${(0x80 | ((code >> 6) & 0x3f)).toString(16)}%${(0x80 | (code & 0x3f)).toString(16)}`.toUpperCase()
      : encodeURIComponent(ch)
  }).join("")
