/**
 * The physical limits here, with the platform's own payloads:
 * - JetStream acked publish of real msgpack reservation envelopes (file storage, work-queue stream, Nats-Msg-Id,
 *   256 in flight), its ack latency (1 in flight and under load), pull consume + ack, core NATS round trip;
 * - PostgreSQL upsert of reservation-shaped rows (the columns and jsonb of `reservations`), one row per autocommit
 *   statement with 64 in flight, 500-row statements, and the commit latency at 1 in flight;
 * - the platform's whole reservation transaction (`applyGroup` of one envelope, with the reservation actor and a partition lease
 *   fence, in this process, no HTTP and no NATS), to separate PostgreSQL's share from the rest of the pipeline.
 */
import { AckPolicy, DiscardPolicy, RetentionPolicy, StorageType, type JetStreamClient, type JetStreamManager } from "@nats-io/jetstream"
import { nanos, type NatsConnection } from "@nats-io/transport-node"
import { randomUUID } from "node:crypto"
import postgres from "postgres"
import { Schema } from "effect"
import { Effect } from "effect"
import { makePrivacyKey, PrivacyKey } from "../../core/privacy/PrivacyKey.ts"
import { applyGroup } from "../../actors/runtime/applyGroup.ts"
import { ReservationActor } from "../../actors/reservation/actor.ts"
import { acquire, release } from "../../actors/runtime/leases.ts"
import { partitionOf } from "../../streams/partition.ts"
import { mergeReservation, type ReservationRow } from "../../actors/reservation/state.ts"
import { ReservationProtocol, type UpsertReservation } from "../../actors/reservation/protocol.ts"
import { ReservationRequest } from "../../schemas/reservation.ts"
import { toUpsertCommand } from "../../src/reservation/normalise.ts"
import { encode, type Envelope } from "../../streams/envelope.ts"
import { Latencies, round } from "./load.ts"
import { ReservationStream, type PayloadOptions } from "./payloads.ts"

const decodeRequest = Schema.decodeUnknownSync(ReservationRequest, { errors: "all" })

/** Upsert commands exactly as the ingress builds them (Schema decode + normalisation). */
export const commandsFor = (o: PayloadOptions, count: number, hotelIds: ReadonlyArray<string>, seed: number) => {
  const stream = new ReservationStream(o, { seed, settle: Math.min(200, Math.floor(count / 4)) })
  return Array.from({ length: count }, (_, i) => toUpsertCommand(decodeRequest(stream.next()) as ReservationRequest, hotelIds[i % hotelIds.length]!))
}

export const envelopeOf = (tenantId: string, sandbox: boolean, cmd: UpsertReservation, namespace: string): Envelope => {
  const id = randomUUID()
  return {
    id,
    actor: "reservation",
    type: "upsert",
    tenant_id: tenantId,
    sandbox,
    key: cmd.external_id,
    payload: ReservationProtocol.codecs.upsert.encodePayload(cmd),
    reply_to: `${namespace}.reply.${randomUUID()}.${id}`,
    sent_at: Date.now()
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Runs `op` with `inFlight` concurrent callers for `durationMs`; returns ops/s and latency. */
const saturate = async (inFlight: number, durationMs: number, op: (i: number) => Promise<number>) => {
  const lat = new Latencies()
  let done = 0
  let units = 0
  let errors = 0
  let next = 0
  const start = performance.now()
  const deadline = start + durationMs
  await Promise.all(Array.from({ length: inFlight }, async () => {
    while (performance.now() < deadline) {
      const t0 = performance.now()
      try {
        const u = await op(next++) // (not `units += await ...`: that reads `units` before awaiting)
        units += u
        lat.add(performance.now() - t0)
        done++
      } catch {
        errors++
      }
    }
  }))
  const seconds = (performance.now() - start) / 1000
  return { ops: done, units, errors, seconds: round(seconds), ops_per_s: round(done / seconds), units_per_s: round(units / seconds), latency_ms: lat.summary() }
}

const sequential = async (count: number, op: (i: number) => Promise<unknown>) => {
  const lat = new Latencies()
  for (let i = 0; i < count; i++) {
    const t0 = performance.now()
    await op(i)
    lat.add(performance.now() - t0)
  }
  return lat.summary()
}

export interface RawJetStreamResult {
  readonly envelope_bytes_mean: number
  readonly in_flight: number
  readonly publish: Awaited<ReturnType<typeof saturate>>
  readonly ack_latency_1_in_flight_ms: ReturnType<Latencies["summary"]>
  readonly consume_ack_per_s: number
  readonly core_request_reply_ms: ReturnType<Latencies["summary"]>
}

/** JetStream limits with the platform's envelopes, on a work-queue stream shaped like `<ns>_INGRESS`. */
export const rawJetStream = async (
  nc: NatsConnection,
  js: JetStreamClient,
  jsm: JetStreamManager,
  namespace: string,
  envelopes: ReadonlyArray<Uint8Array>,
  durationMs: number,
  inFlight = 256
): Promise<RawJetStreamResult> => {
  const stream = `${namespace}_RAWBENCH`
  const subjectOf = (i: number) => `${namespace}.rawbench.${i % 16}`
  await jsm.streams.add({
    name: stream,
    subjects: [`${namespace}.rawbench.>`],
    storage: StorageType.File,
    num_replicas: 1,
    retention: RetentionPolicy.Workqueue,
    discard: DiscardPolicy.Old,
    max_age: nanos(3600 * 1000),
    duplicate_window: nanos(10 * 60 * 1000)
  })
  const bytes = envelopes.reduce((s, e) => s + e.length, 0) / envelopes.length
  const tag = randomUUID()
  const ack1 = await sequential(500, (i) => js.publish(subjectOf(i), envelopes[i % envelopes.length]!, { msgID: `${tag}-s${i}` }))
  const publish = await saturate(inFlight, durationMs, async (i) => {
    await js.publish(subjectOf(i), envelopes[i % envelopes.length]!, { msgID: `${tag}-${i}` })
    return 1
  })

  // Pull consume + ack of what was just published (as the partition consumers do, 128 per pull).
  await jsm.consumers.add(stream, { durable_name: "rawbench", ack_policy: AckPolicy.Explicit, max_ack_pending: 4096 })
  const consumer = await js.consumers.get(stream, "rawbench")
  const toConsume = Math.min((await jsm.streams.info(stream)).state.messages, 200_000)
  const c0 = performance.now()
  let consumed = 0
  const messages = await consumer.consume({ max_messages: 128 })
  const timeout = setTimeout(() => void messages.close(), Math.max(5_000, durationMs))
  for await (const m of messages) {
    m.ack()
    if (++consumed >= toConsume) break
  }
  clearTimeout(timeout)
  await messages.close().catch(() => undefined)
  const consumeSeconds = (performance.now() - c0) / 1000

  // Core NATS request/reply (the shape of the actor's reply to the waiting ingress).
  const sub = nc.subscribe(`${namespace}.rawbench.rr`, { callback: (_e, msg) => void msg.respond(msg.data) })
  const rr = await sequential(1_000, () => nc.request(`${namespace}.rawbench.rr`, envelopes[0]!, { timeout: 5_000 }))
  sub.unsubscribe()
  await jsm.streams.delete(stream)
  return {
    envelope_bytes_mean: Math.round(bytes),
    in_flight: inFlight,
    publish,
    ack_latency_1_in_flight_ms: ack1,
    consume_ack_per_s: round(consumed / consumeSeconds),
    core_request_reply_ms: rr
  }
}

const UPSERT_COLUMNS = [
  "id", "tenant_id", "sandbox", "external_id", "hotel_id", "confirmation_number", "booking_id", "check_in", "check_out",
  "nights", "booking_date", "status", "guest_stage", "channel", "source", "company", "amount", "amount_net", "currency",
  "market_segment", "agency", "agency_code", "external_created_at", "external_updated_at", "comments", "metadata",
  "stays", "extras", "version", "booking_channel_code", "channel_type", "room_type", "room_number", "rate_plan"
] as const

const rowOf = (sql: postgres.Sql, tenantId: string, externalId: string, r: ReservationRow) => {
  const json = (v: unknown) => (v === null || v === undefined ? null : sql.json(v as postgres.JSONValue))
  return {
    ...r,
    tenant_id: tenantId,
    sandbox: false,
    external_id: externalId,
    metadata: json(r.metadata),
    stays: json(r.stays),
    extras: json(r.extras)
  } as unknown as Record<string, postgres.ParameterOrJSON<never>>
}

export interface RawPgResult {
  readonly pool: number
  readonly in_flight: number
  readonly single_row: Awaited<ReturnType<typeof saturate>>
  readonly commit_latency_1_in_flight_ms: ReturnType<Latencies["summary"]>
  readonly batch_500: Awaited<ReturnType<typeof saturate>>
}

/**
 * Reservation-shaped upserts into a copy of `reservations` (same columns, defaults and unique key): 90 % inserts,
 * 10 % conflicts that update, like the request mix.
 */
export const rawPostgres = async (
  databaseUrl: string,
  tenantId: string,
  commands: ReadonlyArray<UpsertReservation>,
  durationMs: number,
  options: { inFlight?: number; pool?: number } = {}
): Promise<RawPgResult> => {
  const inFlight = options.inFlight ?? 64
  const pool = options.pool ?? 20
  const sql = postgres(databaseUrl, { max: pool, onnotice: () => {} })
  try {
    await sql`CREATE TABLE bench_raw_reservations (LIKE reservations INCLUDING DEFAULTS INCLUDING INDEXES)`
    const rows = commands.map((c) => mergeReservation(undefined, randomUUID(), c))
    // The same conflict action as the actor's save: every column but the key and the row id takes the new value.
    const setClause = UPSERT_COLUMNS.filter((c) => !["id", "tenant_id", "sandbox", "external_id"].includes(c))
      .map((c) => `${c} = EXCLUDED.${c}`).join(", ")
    const upsert = (tx: postgres.Sql, records: ReadonlyArray<Record<string, postgres.ParameterOrJSON<never>>>) =>
      tx`INSERT INTO bench_raw_reservations ${tx(records as Array<Record<string, postgres.ParameterOrJSON<never>>>, UPSERT_COLUMNS as unknown as Array<string>)}
        ON CONFLICT (tenant_id, sandbox, external_id) DO UPDATE SET ${tx.unsafe(setClause)}, updated_at = now()`
    let seq = 0
    const externalId = (i: number) => (i % 10 === 9 && i > 100 ? `RAW-${Math.floor(i / 2)}` : `RAW-${i}`)
    const commit1 = await sequential(300, () => {
      const i = seq++
      return upsert(sql, [rowOf(sql, tenantId, externalId(i), { ...rows[i % rows.length]!, id: randomUUID() })])
    })
    const single = await saturate(inFlight, durationMs, async () => {
      const i = seq++
      await upsert(sql, [rowOf(sql, tenantId, externalId(i), { ...rows[i % rows.length]!, id: randomUUID() })])
      return 1
    })
    await sleep(500)
    const batch = await saturate(4, Math.max(2_000, durationMs / 2), async () => {
      const records = Array.from({ length: 500 }, () => {
        const i = seq++
        return rowOf(sql, tenantId, `RAW-${i}`, { ...rows[i % rows.length]!, id: randomUUID() })
      })
      await upsert(sql, records)
      return 500
    })
    return { pool, in_flight: inFlight, single_row: single, commit_latency_1_in_flight_ms: commit1, batch_500: batch }
  } finally {
    await sql`DROP TABLE IF EXISTS bench_raw_reservations`.catch(() => undefined)
    await sql.end({ timeout: 5 })
  }
}

export interface ActorTxnResult {
  readonly pool: number
  readonly in_flight: number
  readonly statements_per_txn: number
  readonly txn: Awaited<ReturnType<typeof saturate>>
  readonly txn_latency_1_in_flight_ms: ReturnType<Latencies["summary"]>
}

/**
 * The reservation actor's transaction (inbox + reservation + contacts + guests + hotel links + consents + event +
 * outbox) through the platform's own `applyGroup` (one envelope per transaction), on a pool as large as the worker's (20). Sandbox scope, so
 * these rows never count among the live contacts of the run.
 */
export const actorTransactions = async (
  databaseUrl: string,
  tenantId: string,
  commands: ReadonlyArray<UpsertReservation>,
  namespace: string,
  durationMs: number,
  options: { inFlight?: number; pool?: number; partitions?: number } = {}
): Promise<ActorTxnResult> => {
  const partitions = options.partitions ?? 16
  const inFlight = options.inFlight ?? 64
  const pool = options.pool ?? 20
  let statements = 0
  const sql = postgres(databaseUrl, { max: pool, onnotice: () => {}, idle_timeout: 30, connect_timeout: 5, debug: () => void statements++ })
  try {
    // Partition leases held for the measurement, so each transaction checks its fence as the worker's do.
    // (Their own lease namespace: the platform's worker must find the run's partitions free when it starts.)
    const owner = `bench-${randomUUID()}`
    const leaseNamespace = `${namespace}-rawtxn`
    const fences = await Promise.all(Array.from({ length: partitions }, (_, p) => acquire(sql, leaseNamespace, "reservation", p, owner, 3_600_000)))
    let i = 0
    const apply = () => {
      const envelope = envelopeOf(tenantId, true, commands[i++ % commands.length]!, namespace)
      const fence = fences[partitionOf(tenantId, envelope.key, partitions)] ?? undefined
      return Effect.runPromise(applyGroup(sql, ReservationActor, [envelope], { namespace, partitions, fences: [fence] }).pipe(
        Effect.provideService(PrivacyKey, makePrivacyKey(Buffer.alloc(32)))
      ))
    }
    const latency1 = await sequential(200, apply)
    const s0 = statements
    const txn = await saturate(inFlight, durationMs, async () => {
      await apply()
      return 1
    })
    await Promise.all(fences.map((f) => (f ? release(sql, f) : undefined)))
    return {
      pool,
      in_flight: inFlight,
      statements_per_txn: round((statements - s0) / Math.max(1, txn.ops), 1),
      txn,
      txn_latency_1_in_flight_ms: latency1
    }
  } finally {
    await sql.end({ timeout: 5 })
  }
}

export const encodeEnvelopes = (tenantId: string, commands: ReadonlyArray<UpsertReservation>, namespace: string) =>
  commands.map((c) => encode(envelopeOf(tenantId, false, c, namespace)))
