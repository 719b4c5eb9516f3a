import { Schema } from "effect"
import { SafeString } from "../text.ts"

// Helpers describing a raw route for the OpenAPI document (schemas/rawRoutes.ts assembles them).

/** Named schemas the descriptions refer to, for the document's components (the core error classes, as HttpApi names them). */
export const RawRouteComponents: Record<string, unknown> = {}

/** A schema as JSON Schema, its named parts referred to under #/components/schemas like HttpApi's own. */
export const json = (schema: Schema.Top) => {
  const doc = Schema.toJsonSchemaDocument(schema as never, { onExcessProperty: "error" })
  const relocate = (node: unknown) => JSON.parse(JSON.stringify(node).replaceAll("\"#/$defs/", "\"#/components/schemas/"))
  for (const [name, definition] of Object.entries(doc.definitions)) RawRouteComponents[name] = relocate(definition)
  return relocate(doc.schema)
}

export const jsonContent = (schema: Schema.Top) => ({ "application/json": { schema: json(schema) } })
export const header = (description: string, type: "string" | "integer" = "string") => ({ description, schema: { type } })


/** A request parameter: text under the text policy, like every HttpApi route's (a value outside it is refused). */
export const param = (name: string, where: "path" | "query" | "header", description: string, required = where === "path") =>
  ({ name, in: where, required, description, schema: json(SafeString) })
