import { expect } from "@effect/vitest"
import type { Sql } from "../../core/db/Database.ts"
import { reservation } from "../support/fixtures.ts"
import type { TimedAnswer } from "./load.ts"

// The partition fault tests' clients and checks (partition.chaos.ts, natsPeers.chaos.ts).

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export interface Writer {
  readonly baseUrl: string
  readonly key: string
  readonly hotelCode: string
}

/** `clients` clients each sending new reservations one after another for `ms`, each request with a 30 s deadline. */
export const load = async (to: Writer, clients: number, ms: number): Promise<Array<TimedAnswer>> => {
  const answers: Array<TimedAnswer> = []
  const started = performance.now()
  await Promise.all(Array.from({ length: clients }, async () => {
    while (performance.now() - started < ms) {
      const body = reservation({ hotel_code: to.hotelCode })
      const at = performance.now() - started
      const res = await fetch(`${to.baseUrl}/api/v1/reservations`, {
        method: "POST", body: JSON.stringify(body), signal: AbortSignal.timeout(30_000),
        headers: { authorization: `Bearer ${to.key}`, "content-type": "application/json" }
      }).catch(() => undefined)
      answers.push({ id: body.reservation_id, at, ms: performance.now() - started - at, status: res?.status ?? 0, retryAfter: res?.headers.get("retry-after") ?? null })
      await res?.arrayBuffer()
      if (res?.status === 503) await sleep(200)
    }
  }))
  return answers
}

/** Every acknowledged reservation stored, and none twice: checked 3 s after the load, once what it set going settled. */
export const storedOnce = async (sql: Sql, tenantId: string, acknowledged: ReadonlyArray<TimedAnswer>) => {
  await sleep(3_000)
  const rows = await sql`SELECT external_id FROM reservations WHERE tenant_id = ${tenantId} AND external_id = ANY(${acknowledged.map((a) => a.id)})`
  const stored = new Set(rows.map((r) => r.external_id as string))
  expect(acknowledged.filter((a) => !stored.has(a.id)).map((a) => a.id)).toEqual([])
  expect(rows.length).toBe(stored.size)
}

/** The unexpired leases a worker holds in a namespace. */
export const liveLeases = async (sql: Sql, namespace: string, owner: string) =>
  (await sql`SELECT count(*)::int AS n FROM partition_leases WHERE namespace = ${namespace} AND owner = ${owner} AND expires_at > now()`)[0]!.n as number

/** Answers per status. */
export const count = (answers: ReadonlyArray<TimedAnswer>) => {
  const out: Record<string, number> = {}
  for (const a of answers) out[a.status] = (out[a.status] ?? 0) + 1
  return out
}

/** Answers per 2 s of the run they were answered in, as `0s:n 2s:n …`. */
export const answeredBy2s = (answers: ReadonlyArray<TimedAnswer>) =>
  Object.entries(Object.groupBy(answers, (a) => Math.floor((a.at + a.ms) / 2_000) * 2)).map(([s, xs]) => `${s}s:${xs!.length}`).join(" ")
