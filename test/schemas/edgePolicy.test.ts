import { describe, expect, it } from "@effect/vitest"
import { OpenApi } from "effect/http-api"
import { Api } from "../../schemas/api.ts"
import { resolveRef } from "../support/jsonSchema.ts"

/**
 * The contract edge, checked on the OpenAPI document of the whole Api, so every family's routes (those to come
 * included) are held to it without a line here:
 * - every string a request carries (body, path, query) is under the text policy (`SafeString`: its pattern);
 * - every number has a minimum and a maximum (an integer's within what a PostgreSQL integer holds);
 * - every value without a declared shape is a bounded free-form value (`FreeFormObject` / `FreeFormValue`:
 *   `x-free-form`), items decoded one by one by their handler (`BatchItems`: `x-items-decoded-as`), or a record whose
 *   keys are constrained (`propertyNames`, or `patternProperties` with nothing else allowed);
 * - every route that reads a body documents 413 (the body limits of `BodyLimits`).
 */

type Node = Record<string, unknown>
const doc = OpenApi.fromApi(Api) as unknown as {
  paths: Record<string, Record<string, {
    parameters?: ReadonlyArray<{ name: string; in: string; schema: Node }>
    requestBody?: { content: Record<string, { schema: Node }> }
    responses: Record<string, unknown>
  }>>
}
const SAFE_TEXT_PATTERN = "^[^\\u0000\\uD800-\\uDFFF]*$"
const METHODS = ["get", "put", "post", "delete", "patch"]
const INT32_MAX = 2_147_483_647

const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
  Object.entries(item).filter(([m]) => METHODS.includes(m)).map(([m, op]) => ({ key: `${m.toUpperCase()} ${path}`, op })))

/** Keyword `k` of the node or of one of its allOf fragments. */
const keyword = (node: Node, k: string): unknown =>
  node[k] ?? ((node.allOf ?? []) as Array<Node>).map((f) => f[k]).find((v) => v !== undefined)

/**
 * Every way `schema` (at `where`) breaks the edge policy. `within` holds the references being checked on the way down:
 * a recursive schema (a segment's condition tree) is checked once, not followed forever.
 */
const violations = (schema: unknown, where: string, within: ReadonlySet<string> = new Set()): Array<string> => {
  if (schema === true || schema === undefined) return [`${where}: any value is accepted`]
  let node = schema as Node
  if (typeof node.$ref === "string") {
    if (within.has(node.$ref)) return []
    within = new Set([...within, node.$ref])
    node = resolveRef(doc, node.$ref) as Node
  }
  // `not: {}` accepts nothing (a key that must be absent).
  if (typeof node.not === "object" && node.not !== null && Object.keys(node.not).length === 0) return []
  if (keyword(node, "x-free-form") !== undefined || keyword(node, "x-items-decoded-as") !== undefined) return []
  if (node.enum !== undefined || node.const !== undefined) return []
  const out: Array<string> = []
  for (const k of ["anyOf", "oneOf"]) {
    if (Array.isArray(node[k])) (node[k] as Array<unknown>).forEach((b, i) => out.push(...violations(b, `${where}|${i}`, within)))
  }
  if (node.anyOf !== undefined || node.oneOf !== undefined) return out
  const types = Array.isArray(node.type) ? node.type : node.type === undefined ? [] : [node.type]
  if (types.length === 0) return [`${where}: a value of any type is accepted`]
  for (const type of types) {
    switch (type) {
      case "string":
        if (keyword(node, "pattern") !== SAFE_TEXT_PATTERN && !((node.allOf ?? []) as Array<Node>).some((f) => f.pattern === SAFE_TEXT_PATTERN)) {
          out.push(`${where}: a string without the text policy (build it on SafeString)`)
        }
        break
      case "number":
      case "integer":
        if (keyword(node, "minimum") === undefined && keyword(node, "exclusiveMinimum") === undefined) out.push(`${where}: a number without a minimum`)
        if (keyword(node, "maximum") === undefined && keyword(node, "exclusiveMaximum") === undefined) out.push(`${where}: a number without a maximum`)
        // Schema.Int alone is bounded by ±2^53, which no integer column holds: an integer gets the bounds of its meaning.
        if (type === "integer" && (Number(keyword(node, "maximum") ?? 0) > INT32_MAX || Number(keyword(node, "minimum") ?? 0) < -INT32_MAX - 1)) {
          out.push(`${where}: an integer bounded beyond what a PostgreSQL integer holds (boundedInt?)`)
        }
        break
      case "array":
        out.push(...violations(node.items, `${where}[]`, within))
        break
      case "object": {
        const properties = (node.properties ?? {}) as Record<string, unknown>
        for (const [name, p] of Object.entries(properties)) out.push(...violations(p, `${where}.${name}`, within))
        // Keys named by properties, constrained by propertyNames, or only those matching patternProperties (nothing else).
        const patterns = (node.patternProperties ?? {}) as Record<string, unknown>
        for (const [pattern, p] of Object.entries(patterns)) out.push(...violations(p, `${where}.<${pattern}>`, within))
        const keysChecked = node.properties !== undefined || node.propertyNames !== undefined ||
          (Object.keys(patterns).length > 0 && node.additionalProperties === false)
        if (!keysChecked) out.push(`${where}: an object whose keys are not checked (FreeFormObject?)`)
        if (typeof node.additionalProperties === "object") out.push(...violations(node.additionalProperties, `${where}.*`, within))
        else if (node.properties === undefined && node.additionalProperties !== false) out.push(`${where}: values of any type are accepted`)
        break
      }
      case "boolean":
      case "null":
        break
      default:
        out.push(`${where}: unknown type ${String(type)}`)
    }
  }
  return out
}

describe("the contract edge (every route of the Api)", () => {
  it("covers the routes of the document", () => {
    expect(operations.length).toBeGreaterThan(20)
  })

  it("holds every string to the text policy, bounds every number, and every free-form value", () => {
    const problems = operations.flatMap(({ key, op }) => [
      ...(op.parameters ?? []).flatMap((p) => violations(p.schema, `${key} ${p.in} ${p.name}`)),
      ...Object.values(op.requestBody?.content ?? {}).flatMap((c) => violations(c.schema, `${key} body`))
    ])
    expect(problems, problems.join("\n")).toEqual([])
  })

  it("documents 413 on every route that reads a body", () => {
    const missing = operations.filter(({ op }) => op.requestBody !== undefined && op.responses["413"] === undefined).map((o) => o.key)
    expect(missing).toEqual([])
  })

  it("finds what it is meant to find", () => {
    expect(violations({ type: "string" }, "s")).toHaveLength(1)
    expect(violations({ type: "number", minimum: 0 }, "n")).toHaveLength(1)
    expect(violations({ type: "integer", minimum: -9007199254740991, maximum: 9007199254740991 }, "i")).toHaveLength(1)
    expect(violations({ type: "object" }, "o").length).toBeGreaterThan(0)
    expect(violations({}, "u")).toHaveLength(1)
    expect(violations({ type: "array", items: {} }, "a")).toHaveLength(1)
    expect(violations({ type: "object", additionalProperties: { type: "string", pattern: SAFE_TEXT_PATTERN }, propertyNames: {} }, "r")).toEqual([])
    expect(violations({ type: "object", patternProperties: { "^[a-z]+$": { type: "boolean" } }, additionalProperties: false }, "p")).toEqual([])
    expect(violations({ type: "object", patternProperties: { "^[a-z]+$": { type: "boolean" } } }, "p").length).toBeGreaterThan(0)
    expect(violations({ type: "object", patternProperties: { "^[a-z]+$": { type: "string" } }, additionalProperties: false }, "p")).toHaveLength(1)
  })
})
