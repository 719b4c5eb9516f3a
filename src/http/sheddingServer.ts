import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import { writeAccessLine } from "../../core/observability/accessLog.ts"
import { Metrics } from "../../core/observability/metrics.ts"
import { echoedOrigin, errorBody, WEBSITE_EVENTS_PATH } from "../website/answers.ts"
import { overloadedMessage, RETRY_AFTER_S } from "./answers.ts"
import { coreErrorBody } from "./errorShape.ts"
import { routeLabel } from "./metrics.ts"
import { requestIdOf } from "./requestId.ts"

const READS = new Set(["GET", "HEAD", "OPTIONS"])

/** Writes to the core API, which are what a saturated ingress turns away first (reads, probes and pages go on). */
const shedable = (request: IncomingMessage) => !READS.has(request.method ?? "GET") && (request.url ?? "").startsWith("/api/v1/")

/**
 * The 503 in the shape of the family asked: website events answer `{ error: { code, message, fix, docs } }` with the
 * caller's origin echoed (a browser reads neither the status's reason nor Retry-After without it), the core API its own.
 */
const shedAnswer = (request: IncomingMessage, requestId: string): { body: string; headers: Record<string, string> } => {
  if ((request.url ?? "").startsWith(WEBSITE_EVENTS_PATH)) {
    const { error } = errorBody("unavailable", overloadedMessage("process"))
    return { body: JSON.stringify({ error: { ...error, request_id: requestId } }), headers: echoedOrigin(request.headers["origin"]) }
  }
  return { body: JSON.stringify(coreErrorBody("SERVICE_UNAVAILABLE", overloadedMessage("process"), { retry_after_seconds: RETRY_AFTER_S }, requestId)), headers: {} }
}

/**
 * The 503 written straight on the Node response: no router, no fiber, no body read (Node drains it after the answer, so
 * the connection stays usable). The core error shape with its request id, as every other answer of the API.
 */
const shed = (request: IncomingMessage, response: ServerResponse) => {
  const started = performance.now()
  const requestId = requestIdOf(request.headers["x-request-id"] as string | undefined)
  const { body, headers } = shedAnswer(request, requestId)
  response.writeHead(503, {
    "content-type": "application/json", "content-length": Buffer.byteLength(body), "retry-after": String(RETRY_AFTER_S), "x-request-id": requestId,
    ...headers
  })
  response.end(body)
  const route = routeLabel(request.url ?? "/")
  Metrics.shed.inc({ where: "socket", reason: "process" })
  Metrics.httpRequests.inc({ route, method: request.method ?? "", status: "503" })
  writeAccessLine({
    request_id: requestId, method: request.method ?? "", route, status: 503, duration_ms: Math.round((performance.now() - started) * 10) / 10,
    bytes: Buffer.byteLength(body), tenant_id: null, key_prefix: null
  })
}

/**
 * The ingress's HTTP server, which bounds the writes to the core API it has in the application at once: beyond
 * `bound()` (the admission limit, streams/Admission.ts, plus room for the ones being read and authenticated), a write
 * is answered 503 with Retry-After as soon as Node has parsed its head. The admission limit alone refuses a write
 * only once it is routed and its key checked, about half a millisecond of the ingress's time each, which a flood
 * several times the workers' pace turns into a queue in the ingress's own sockets; turned away here, a request costs
 * tens of microseconds. Reads, probes and the other families are never turned away here.
 */
export const sheddingServer = (bound: () => number): Server => {
  const server = createServer()
  const emit = server.emit
  let writes = 0
  const done = () => void writes--
  server.emit = function(this: Server, event: string | symbol, ...args: Array<unknown>) {
    if (event === "request" && shedable(args[0] as IncomingMessage)) {
      if (writes >= bound()) {
        shed(args[0] as IncomingMessage, args[1] as ServerResponse)
        return true
      }
      writes++
      ;(args[1] as ServerResponse).once("close", done)
    }
    return emit.apply(this, [event, ...args] as Parameters<Server["emit"]>)
  } as Server["emit"]
  return server
}
