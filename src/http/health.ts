import { Effect, Layer } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { AppConfig } from "../../core/config/AppConfig.ts"
import { Database } from "../../core/db/Database.ts"
import { Nats } from "../../streams/Nats.ts"
import { topologyPresent } from "../../streams/topology.ts"

const withTimeout = <A>(p: Promise<A>, ms: number): Promise<A> =>
  Promise.race([p, new Promise<A>((_, reject) => setTimeout(() => reject(new Error("timeout")), ms))])

/** `/healthz`: the process answers. `/readyz`: NATS and PostgreSQL answer and the streams exist. */
export const HealthRoutes = Layer.mergeAll(
  HttpRouter.add("GET", "/healthz", HttpServerResponse.jsonUnsafe({ status: "ok" })),
  HttpRouter.add("GET", "/readyz", Effect.gen(function*() {
    const config = yield* AppConfig
    const { sql } = yield* Database
    const { nc, jsm } = yield* Nats
    const checks = yield* Effect.promise(async () => {
      const postgres = await withTimeout(sql`SELECT 1`, 2_000).then(() => true, () => false)
      const nats = !nc.isClosed() && await withTimeout(nc.flush(), 2_000).then(() => true, () => false)
      const streams = nats && await withTimeout(topologyPresent(jsm, config.namespace), 2_000).catch(() => false)
      return { postgres, nats, streams }
    })
    const ready = checks.postgres && checks.nats && checks.streams
    return HttpServerResponse.jsonUnsafe({ status: ready ? "ready" : "not_ready", checks }, { status: ready ? 200 : 503 })
  }))
)
