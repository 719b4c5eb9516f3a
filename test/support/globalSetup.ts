import { jetstreamManager } from "@nats-io/jetstream"
import { connect } from "@nats-io/transport-node"
import { randomBytes } from "node:crypto"
import postgres from "postgres"
import type { TestProject } from "vitest/node"
import { migrate } from "../../core/db/migrate.ts"

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string
    namespace: string
    natsUrl: string
  }
}

/**
 * Each run gets its own database and its own GEP_NAMESPACE prefix, so concurrent runs (and CI next to a
 * developer) never share a row, a stream or a consumer. Both are removed at the end of the run.
 */
export default async function setup(project: TestProject) {
  const runId = `${Date.now().toString(36)}${randomBytes(3).toString("hex")}`
  const base = new URL(process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/gep")
  const natsUrl = process.env.NATS_URL ?? "nats://127.0.0.1:4222"
  base.pathname = `/gep_test_${runId}`
  const databaseUrl = base.toString()
  const namespace = `t${runId}`
  await migrate(databaseUrl)
  project.provide("databaseUrl", databaseUrl)
  project.provide("namespace", namespace)
  project.provide("natsUrl", natsUrl)

  return async () => {
    const nc = await connect({ servers: natsUrl.split(",") })
    try {
      const jsm = await jetstreamManager(nc)
      for await (const name of jsm.streams.names()) {
        if (name.startsWith(namespace)) await jsm.streams.delete(name)
      }
    } finally {
      await nc.close()
    }
    const admin = new URL(databaseUrl)
    admin.pathname = "/postgres"
    const sql = postgres(admin.toString(), { max: 1, onnotice: () => {} })
    await sql.unsafe(`DROP DATABASE IF EXISTS "gep_test_${runId}" WITH (FORCE)`)
    await sql.end()
  }
}
