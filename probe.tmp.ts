import { OpenApi } from "effect/http-api"
import { Api } from "./schemas/api.ts"
const spec: any = OpenApi.fromApi(Api)
const resolve = (s: any): any => s?.$ref ? resolve(spec.components.schemas[s.$ref.split("/").pop()]) : s
for (const [path, item] of Object.entries<any>(spec.paths)) for (const [m, op] of Object.entries<any>(item)) {
  const content = op?.requestBody?.content
  if (!content) continue
  for (const [ct, c] of Object.entries<any>(content)) {
    const s = resolve(c.schema)
    console.log(m.toUpperCase(), path, ct, "top additionalProperties:", JSON.stringify(s?.additionalProperties), s?.anyOf ? "anyOf" : "")
  }
}
