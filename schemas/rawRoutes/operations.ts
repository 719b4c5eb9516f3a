import { Schema } from "effect"
import { jsonContent } from "./document.ts"

// The operator's routes (src/http/health.ts, src/http/metrics.ts): liveness, readiness and Prometheus metrics.

const Checks = Schema.Struct({ postgres: Schema.Boolean, nats: Schema.Boolean, streams: Schema.Boolean })
export const Readiness = Schema.Struct({ status: Schema.Literals(["ready", "not_ready"]), checks: Checks })

export const OperationsPaths = {
  "/healthz": {
    get: {
      tags: ["operations"],
      operationId: "getLiveness",
      summary: "Liveness: the process answers",
      responses: { "200": { description: "Alive", content: jsonContent(Schema.Struct({ status: Schema.Literal("ok") })) } }
    }
  },
  "/readyz": {
    get: {
      tags: ["operations"],
      operationId: "getReadiness",
      summary: "Readiness: PostgreSQL answers, NATS answers and the streams exist (each within 2 s)",
      responses: {
        "200": { description: "Ready", content: jsonContent(Readiness) },
        "503": { description: "Not ready: the checks say which part is missing", content: jsonContent(Readiness) }
      }
    }
  },
  "/metrics": {
    get: {
      tags: ["operations"],
      operationId: "getMetrics",
      summary: "Prometheus metrics of this process (text exposition format)",
      responses: { "200": { description: "The metrics", content: { "text/plain": { schema: { type: "string" } } } } }
    }
  }
}
