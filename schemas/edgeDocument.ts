import { Schema } from "effect"
import { CoreErrorBody } from "./errors.ts"
import { SafeString } from "./text.ts"

// What the edge adds to every answer (src/http/requestEdge.ts), described on every operation of /openapi.json:
// X-Request-Id in and out, and on the operations honouring it (schemas/idempotency.ts), Idempotency-Key, the
// Idempotent-Replayed answer header and the 409 of a key reused for another request.

type Operation = { parameters?: Array<Record<string, unknown>>; responses?: Record<string, Record<string, unknown>> }
type Paths = Record<string, Record<string, unknown>>

const METHODS = new Set(["get", "put", "post", "delete", "patch", "head", "options"])

export const REQUEST_ID_PATTERN = "^[A-Za-z0-9._:-]{1,128}$"

// Inline (not $ref) so every reader of `parameters` sees the schema; within the text policy as every request string.
const safeText = Schema.toJsonSchemaDocument(SafeString).schema
const parameters = {
  IdempotencyKey: {
    name: "Idempotency-Key",
    in: "header",
    required: false,
    description: "Makes a retry safe: the same key with the same request within 24 h answers the first answer again " +
      "(with `Idempotent-Replayed: true`); with another request it is a 409 IDEMPOTENCY_CONFLICT. Scoped to the account " +
      "and mode (live or sandbox). 1-255 printable ASCII characters, e.g. a UUID.",
    schema: { type: "string", minLength: 1, maxLength: 255, pattern: "^[\\x20-\\x7E]{1,255}$", allOf: [safeText] }
  },
  XRequestId: {
    name: "X-Request-Id",
    in: "header",
    required: false,
    description: "Your id for this request (1-128 of A-Z a-z 0-9 . _ : -): answered back in X-Request-Id; one is made when absent or malformed.",
    schema: { type: "string", pattern: REQUEST_ID_PATTERN, allOf: [safeText] }
  }
}

const headers = {
  XRequestId: {
    description: "The request's id (yours when well-formed, else `req_…`); also `error.request_id` in error bodies and in every log line of the request",
    schema: { type: "string" }
  },
  IdempotentReplayed: {
    description: "`true` when this is the stored answer to an earlier request with the same Idempotency-Key",
    schema: { type: "string", enum: ["true"] }
  }
}

const CONFLICT = "IDEMPOTENCY_CONFLICT: the Idempotency-Key was used for another request (method, path or body) in the last 24 h; " +
  "or IDEMPOTENCY_IN_PROGRESS: a request with this key is still running after 10 s (retry after Retry-After)"

const coreError = Schema.toJsonSchemaDocument(CoreErrorBody, { onExcessProperty: "error" }).schema

const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` })

/** Stored and replayed answers: any but a 5xx and a 429 (an answer a retry may change). */
const replayable = (status: string) => !status.startsWith("5") && status !== "429"

const describeOperation = (op: Operation, idempotent: boolean): Operation => {
  const isHeader = (p: Record<string, unknown>, name: string) => p.in === "header" && String(p.name).toLowerCase() === name
  const own = (op.parameters ?? []).filter((p) => !isHeader(p, "x-request-id") && !(idempotent && isHeader(p, "idempotency-key")))
  // A route that also reads the header itself (messages, loyalty) keeps its own words after the generic ones.
  const declared = (op.parameters ?? []).find((p) => isHeader(p, "idempotency-key"))
  const routeOwn = declared?.description ?? (declared?.schema as { description?: unknown } | undefined)?.description
  const idempotencyKey = routeOwn === undefined ? parameters.IdempotencyKey
    : { ...parameters.IdempotencyKey, description: `${parameters.IdempotencyKey.description} On this route also: ${String(routeOwn)}.` }
  const responses: Record<string, Record<string, unknown>> = {}
  for (const [status, response] of Object.entries(op.responses ?? {})) {
    const extra = idempotent && replayable(status) ? { "Idempotent-Replayed": ref("headers", "IdempotentReplayed") } : {}
    responses[status] = { ...response, headers: { ...(response.headers as object ?? {}), "X-Request-Id": ref("headers", "XRequestId"), ...extra } }
  }
  if (idempotent) {
    const existing = responses["409"]
    responses["409"] = existing === undefined
      ? { description: CONFLICT, headers: { "X-Request-Id": ref("headers", "XRequestId") }, content: { "application/json": { schema: coreError } } }
      : { ...existing, description: `${String(existing.description ?? "")}; or ${CONFLICT}` }
  }
  return {
    ...op,
    parameters: [...own, parameters.XRequestId, ...(idempotent ? [idempotencyKey] : [])],
    responses
  }
}

/** The document with the edge's headers and answers on every operation; `idempotent` names them as `POST /path/{p}`. */
export const describeEdge = <D extends { paths: object; components: object }>(doc: D, idempotent: ReadonlySet<string>): D => {
  const paths: Paths = {}
  for (const [path, item] of Object.entries(doc.paths as Paths)) {
    paths[path] = Object.fromEntries(Object.entries(item).map(([method, op]) =>
      METHODS.has(method) ? [method, describeOperation(op as Operation, idempotent.has(`${method.toUpperCase()} ${path}`))] : [method, op]))
  }
  const components = doc.components as Record<string, Record<string, unknown> | undefined>
  return {
    ...doc,
    paths,
    components: {
      ...components,
      headers: { ...components.headers, ...headers }
    }
  }
}
