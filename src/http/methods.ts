import { HttpServerResponse } from "effect/http"
import { coreErrorResponse } from "./errorShape.ts"

/**
 * The routes of the served document (/openapi.json: HttpApi's operations and the raw routes it lists), as path
 * templates with their methods: which methods a path accepts, for the 405 of a known path asked with another method.
 * One source: what the document says is what the router serves.
 */
export interface RouteTable {
  /** The methods a concrete path accepts (HEAD wherever GET is: the router answers it), none for an unknown path. */
  readonly allowed: (path: string) => ReadonlyArray<string>
}

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"]

const templateRegex = (template: string) =>
  new RegExp("^" + template.split(/\{[^}]+\}/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("[^/]+") + "/?$")

export const routeTable = (paths: Record<string, Record<string, unknown>>): RouteTable => {
  const templates = Object.entries(paths).map(([template, item]) => ({
    regex: templateRegex(template),
    methods: METHODS.filter((m) => item[m] !== undefined).map((m) => m.toUpperCase())
  }))
  return {
    allowed: (path) => {
      const methods = new Set<string>()
      for (const t of templates) if (t.regex.test(path)) for (const m of t.methods) methods.add(m)
      if (methods.has("GET")) methods.add("HEAD")
      return [...methods].sort()
    }
  }
}

/** The router found no route for the request: 405 with Allow when the path is known with other methods, else the 404. */
export const methodNotAllowed = (table: RouteTable, method: string, url: string): HttpServerResponse.HttpServerResponse | undefined => {
  const allowed = table.allowed(url.split("?")[0]!)
  if (allowed.length === 0 || allowed.includes(method)) return undefined
  return coreErrorResponse(405, "METHOD_NOT_ALLOWED", `${method} is not allowed here; this path accepts ${allowed.join(", ")}`, {
    allowed_methods: allowed
  }, { allow: allowed.join(", ") })
}
