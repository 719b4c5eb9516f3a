import { Schema } from "effect"
import { NotYetEmitted, WebhookPayloads } from "../../../schemas/webhookPayloads.ts"
import { code, header, table } from "./markdown.ts"

/** A JSON Schema node, as Schema.toJsonSchemaDocument writes it. */
interface Node {
  readonly type?: string
  readonly enum?: ReadonlyArray<unknown>
  readonly anyOf?: ReadonlyArray<Node>
  readonly properties?: Readonly<Record<string, Node>>
  readonly required?: ReadonlyArray<string>
  readonly items?: Node
  readonly format?: string
  readonly description?: string
  readonly $ref?: string
}

type Definitions = Readonly<Record<string, Node>>

const resolve = (node: Node, defs: Definitions): Node =>
  node.$ref === undefined ? node : resolve(defs[node.$ref.split("/").pop()!] ?? {}, defs)

/** JSON's encoding of a non-finite number ("Infinity" ...) is how Schema.Number is documented; a reader sees a number. */
const isNonFiniteNumberText = (n: Node) => n.type === "string" && n.enum?.every((v) => ["Infinity", "-Infinity", "NaN"].includes(v as string))

const typeOf = (raw: Node, defs: Definitions): string => {
  const node = resolve(raw, defs)
  if (node.anyOf) {
    const options = node.anyOf.map((n) => resolve(n, defs)).filter((n) => !isNonFiniteNumberText(n))
    const nullable = options.some((n) => n.type === "null")
    const rest = [...new Set(options.filter((n) => n.type !== "null").map((n) => typeOf(n, defs)))]
    return rest.join(" or ") + (nullable ? " or null" : "")
  }
  if (node.enum) return `one of ${node.enum.map((v) => code(String(v))).join(", ")}`
  if (node.type === "array") return `array of ${node.items ? typeOf(node.items, defs) : "anything"}`
  if (node.type === undefined) return "any"
  return node.format ? `${node.type} (${node.format})` : node.type
}

/** The object inside a node (itself, the non-null option of a nullable, an array's items), if there is one. */
const objectIn = (raw: Node, defs: Definitions): { node: Node; suffix: string } | undefined => {
  const node = resolve(raw, defs)
  if (node.properties) return { node, suffix: "" }
  if (node.anyOf) {
    for (const option of node.anyOf) {
      const inner = objectIn(option, defs)
      if (inner) return inner
    }
  }
  if (node.type === "array" && node.items) {
    const inner = objectIn(node.items, defs)
    return inner && { node: inner.node, suffix: "[]" + inner.suffix }
  }
  return undefined
}

/** One row per field, nested objects flattened into dotted paths (`run.error.code`, `items[].sku`). */
const fieldRows = (object: Node, defs: Definitions, prefix: string): Array<Array<string>> =>
  Object.entries(object.properties ?? {}).flatMap(([name, child]) => {
    const path = prefix + name
    const optional = !(object.required ?? []).includes(name)
    const description = resolve(child, defs).description ?? child.description ?? ""
    const row = [code(path), typeOf(child, defs) + (optional ? " (optional)" : ""), description]
    const inner = objectIn(child, defs)
    return inner ? [row, ...fieldRows(inner.node, defs, `${path}${inner.suffix}.`)] : [row]
  })

const documentOf = (schema: Schema.Top) => Schema.toJsonSchemaDocument(schema as Schema.Codec<unknown, unknown>) as unknown as { schema: Node; definitions: Definitions }

/** docs/reference/webhook-events.md: every event type of schemas/webhookPayloads.ts, its envelope and `data` fields. */
export const webhookEventsPage = (): string => {
  const types = [...WebhookPayloads.keys()].sort()
  // Event types with the same `data` are shown together (contact.created and contact.updated ...).
  const byData = new Map<string, { types: Array<string>; rows: Array<Array<string>> }>()
  let envelopeRows: Array<Array<string>> = []
  for (const type of types) {
    const { schema, definitions } = documentOf(WebhookPayloads.get(type)!)
    const data = schema.properties?.data
    if (data === undefined) throw new Error(`webhook events: ${type}'s body has no data`)
    envelopeRows = fieldRows({ ...schema, properties: Object.fromEntries(Object.entries(schema.properties!).filter(([k]) => k !== "data" && k !== "event_type")) }, definitions, "")
    const inner = objectIn(data, definitions)
    const rows = inner ? fieldRows(inner.node, definitions, "data.") : [[code("data"), typeOf(data, definitions), ""]]
    const key = JSON.stringify(rows)
    const group = byData.get(key)
    if (group) group.types.push(type)
    else byData.set(key, { types: [type], rows })
  }
  const families = new Map<string, Array<{ types: Array<string>; rows: Array<Array<string>> }>>()
  for (const group of byData.values()) {
    const family = group.types[0]!.split(".")[0]!
    families.set(family, [...(families.get(family) ?? []), group])
  }
  const sections = [...families.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([family, groups]) =>
    `## ${family}\n\n` + groups.map((g) =>
      `### ${g.types.map(code).join(", ")}\n\n${table(["field", "type", "meaning"], g.rows)}`).join("\n\n"))
  return header("Webhook events", "schemas/webhookPayloads.ts (the event schemas of schemas/*Events.ts)") +
    "Every event type a webhook subscription can receive (`event_types` of `POST /api/v1/webhooks`), and the body it " +
    "is sent. How deliveries are signed and retried is in the webhooks guide; the same schemas are under `webhooks` " +
    "in `/openapi.json`. Fields marked optional may be absent; a receiver should ignore fields it does not know, " +
    "as new ones may be added.\n\n" +
    "## The envelope\n\nEvery body, whatever the event, carries these beside `event_type` and `data`:\n\n" +
    table(["field", "type", "meaning"], envelopeRows) + "\n\n" +
    `Event types (${types.length}): ${types.map(code).join(", ")}.` +
    (NotYetEmitted.length > 0 ? ` Accepted in a subscription but not emitted yet: ${NotYetEmitted.map(code).join(", ")}.` : "") +
    "\n\n" + sections.join("\n\n") + "\n"
}
