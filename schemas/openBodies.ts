import { Context } from "effect"
import { HttpApi, type HttpApiGroup } from "effect/http-api"

/** An OpenAPI path of an HttpApi route (`/api/v1/webhooks/:id` → `/api/v1/webhooks/{id}`), as the generator writes it. */
export const openApiPath = (path: string): string => path.replace(/:([A-Za-z0-9_]+)/g, "{$1}")

/**
 * The HttpApi operations (`PUT /api/v1/channels/email`) that refuse a body key their schema does not declare: their
 * parse options say `onExcessProperty: "error"`. Every other route accepts such a key (and reports it where its answer
 * carries warnings).
 */
export const refusingOperations = <Id extends string, Groups extends HttpApiGroup.Constraint>(
  api: HttpApi.HttpApi<Id, Groups>
): ReadonlySet<string> => {
  const refusing = new Set<string>()
  HttpApi.reflect(api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, mergedAnnotations }) => {
      const options = Context.getOption(mergedAnnotations, HttpApi.PayloadParseOptions)
      if (options._tag === "Some" && options.value.onExcessProperty === "error") {
        refusing.add(`${endpoint.method} ${openApiPath(endpoint.path)}`)
      }
    }
  })
  return refusing
}

// Values of these keywords are data (or our bounds), not schemas: never walked.
const DATA_KEYWORDS = new Set(["enum", "const", "default", "examples", "example", "x-free-form"])

type Json = Record<string, unknown>
const isJsonObject = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * Takes the generator's `additionalProperties: false` (written for every struct) out of every request body an
 * operation accepts extra keys in, in place, and returns the paths; the bodies of the `refusing` operations keep it.
 * The body schemas and the components they refer to are walked once each; answers are left as they are.
 */
export const openAcceptingBodies = (spec: Record<string, any>, refusing: ReadonlySet<string>): Record<string, any> => {
  const components = (spec.components?.schemas ?? {}) as Record<string, unknown>
  const seen = new Set<unknown>()
  const open = (node: unknown): void => {
    if (typeof node !== "object" || node === null || seen.has(node)) return
    seen.add(node)
    if (Array.isArray(node)) return node.forEach(open)
    const schema = node as Json
    if (schema.additionalProperties === false) delete schema.additionalProperties
    if (typeof schema.$ref === "string" && schema.$ref.startsWith("#/components/schemas/")) {
      open(components[schema.$ref.slice("#/components/schemas/".length)])
    }
    for (const [key, value] of Object.entries(schema)) if (!DATA_KEYWORDS.has(key)) open(value)
  }
  for (const [path, item] of Object.entries((spec.paths ?? {}) as Record<string, unknown>)) {
    if (!isJsonObject(item)) continue
    for (const [method, operation] of Object.entries(item)) {
      if (refusing.has(`${method.toUpperCase()} ${path}`) || !isJsonObject(operation)) continue
      const body = operation.requestBody
      if (isJsonObject(body) && isJsonObject(body.content)) {
        for (const media of Object.values(body.content)) if (isJsonObject(media)) open(media.schema)
      }
    }
  }
  return spec.paths
}
