import { Context } from "effect"
import { HttpApi, type HttpApiGroup } from "effect/http-api"
import { openApiPath } from "./openBodies.ts"
import { acceptedScopes, Authentication, RequiredScope } from "./security.ts"

/**
 * The scopes each API-key operation accepts, read from the same annotation the Authentication middleware enforces
 * (`RequiredScope` on the endpoint), keyed `METHOD {path}`; an empty list where any key of the account will do.
 */
export const operationScopes = <Id extends string, Groups extends HttpApiGroup.Constraint>(
  api: HttpApi.HttpApi<Id, Groups>
): ReadonlyMap<string, ReadonlyArray<string>> => {
  const scopes = new Map<string, ReadonlyArray<string>>()
  HttpApi.reflect(api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, middleware }) => {
      if (!middleware.has(Authentication as never)) return
      const required = Context.getOption(endpoint.annotations, RequiredScope)
      scopes.set(`${endpoint.method} ${openApiPath(endpoint.path)}`, required._tag === "Some" ? acceptedScopes(required.value) : [])
    }
  })
  return scopes
}

/**
 * Each API-key operation's security requirement names the scope it needs (OpenAPI 3.1 lets an http scheme's
 * requirement list role names): one requirement per accepted scope, since any one of them will do; `[]` for any key.
 */
export const withScopes = <P extends object>(paths: P, scopes: ReadonlyMap<string, ReadonlyArray<string>>): P =>
  Object.fromEntries(Object.entries(paths).map(([path, item]) => [path, Object.fromEntries(Object.entries(item as Record<string, unknown>).map(([method, op]) => {
    const accepted = scopes.get(`${method.toUpperCase()} ${path}`)
    if (accepted === undefined || typeof op !== "object" || op === null) return [method, op]
    return [method, { ...op, security: accepted.length === 0 ? [{ bearer: [] }] : accepted.map((scope) => ({ bearer: [scope] })) }]
  }))])) as P
