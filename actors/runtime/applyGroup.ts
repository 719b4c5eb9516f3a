import { Effect, Result } from "effect"
import { randomUUID } from "node:crypto"
import { databaseFailure, isDatabaseFailure, type DatabaseFailure } from "../../core/db/DatabaseFailure.ts"
import { actAsTenant, type Sql } from "../../core/db/Database.ts"
import type { ReplyExit } from "../../streams/ActorProtocol.ts"
import { encode, type Envelope } from "../../streams/envelope.ts"
import { StoredAnswers } from "../../streams/topics.ts"
import { outboxSubject } from "../../streams/subjects.ts"
import { ActorTransaction, type AnyActor, GroupTransaction, isWaveHandler, type OutboxMessage } from "./Actor.ts"
import { checkFences, LeaseLost, type Fence } from "./leases.ts"
import type { OutboxRow, StoredMessage } from "./OutboxRelay.ts"
import { transaction } from "./transaction.ts"
import { withWebhookSequences } from "./webhookSequences.ts"

/** One envelope's result: the answer for its caller, the outbox rows it wrote, and whether it was a redelivery. */
export interface Applied {
  readonly exit: ReplyExit
  readonly outbox: ReadonlyArray<OutboxMessage>
  readonly duplicate: boolean
}

/** A group's results (in input order) and the outbox rows it wrote, to publish after commit. */
export interface GroupApplied {
  readonly results: ReadonlyArray<Applied>
  readonly rows: ReadonlyArray<OutboxRow>
}

export interface GroupOptions {
  readonly namespace: string
  readonly partitions: number
  /** The partition lease each envelope is applied under (by index); all checked once, last, inside the transaction. */
  readonly fences?: ReadonlyArray<Fence | undefined> | undefined
}

/**
 * Applies envelopes of one actor type (from any partitions of a lane) together, exactly once each: ONE transaction
 * holds every envelope's inbox row, state change and outbox messages, ONE fence check over every lease involved, ONE
 * commit. A key's envelopes run in order, one wave each; the keys of a wave run together (a set-based handler gets
 * the whole wave, others run concurrently on the transaction's connection, their statements pipelined; a serial
 * actor's one after another). A redelivered envelope finds its inbox row and gets its stored answer without touching
 * state. Results are in input order.
 *
 * The group fails as a whole (nothing commits) when a statement or a handler fails unexpectedly; the caller then
 * retries it or applies its envelopes one group each, so one bad envelope never fails or stalls the others.
 */
export const applyGroup = Effect.fn("Actor.applyGroup")(function*(
  sql: Sql,
  actor: AnyActor,
  envelopes: ReadonlyArray<Envelope>,
  options: GroupOptions
) {
  return yield* transaction(sql, (tx) =>
    Effect.gen(function*() {
      const results = new Array<Applied>(envelopes.length)
      const rows: Array<OutboxRow> = []
      const scopes = groupBy(envelopes.map((_, i) => i), (i) => `${envelopes[i]!.tenant_id}/${envelopes[i]!.sandbox}`)
      let phase = 0
      // Row-level security confines a transaction to one tenant at a time: each tenant scope's envelopes (live or
      // sandbox) form a phase.
      for (const indices of scopes.values()) {
        phase++
        const { tenant_id: tenantId, sandbox } = envelopes[indices[0]!]!
        const ids = indices.map((i) => envelopes[i]!.id)
        const [, seen] = yield* tryQuery(() => Promise.all([
          actAsTenant(tx, tenantId),
          tx`SELECT envelope_id, reply FROM inbox WHERE envelope_id = ANY(${ids})`
        ]))
        const stored = new Map(seen.map((r) => [r.envelope_id as string, StoredAnswers.decode(r.reply as Uint8Array)]))
        const first = new Map<string, number>()
        const chains = new Map<string, Array<number>>()
        for (const i of indices) {
          const e = envelopes[i]!
          const reply = stored.get(e.id)
          if (reply !== undefined) results[i] = { exit: reply, outbox: [], duplicate: true }
          else if (first.has(e.id)) continue // the same envelope twice in one fetch: answered from the first below
          else {
            first.set(e.id, i)
            const chain = chains.get(e.key)
            if (chain) chain.push(i)
            else chains.set(e.key, [i])
          }
        }
        // Waves: the n-th envelope of every key together; a key's next envelope waits for the next wave.
        const chainList = [...chains.values()]
        for (let n = 0; chainList.some((c) => c.length > n); n++) {
          const wave = chainList.filter((c) => c.length > n).map((c) => c[n]!)
          yield* applyWave(actor, envelopes, wave, results).pipe(Effect.provideService(GroupTransaction, {
            tx,
            scope: { tenant_id: tenantId, sandbox },
            subject: (kind, name) => outboxSubject(options.namespace, kind, name),
            target: { namespace: options.namespace, partitions: options.partitions }
          }))
        }
        for (const i of indices) {
          if (results[i] === undefined) results[i] = { ...results[first.get(envelopes[i]!.id)!]!, outbox: [], duplicate: true }
        }

        const fresh = [...first.values()]
        const fence = (i: number) => options.fences?.[i]
        // Every message of the phase in one batch row (each keeps its own id as its Nats-Msg-Id).
        // Webhook commands get their per-object sequence here, in the transaction that writes them.
        const outbox = yield* tryQuery(() => withWebhookSequences(tx, fresh.flatMap((i) => results[i]!.outbox)))
        const messages = outbox.map((m): StoredMessage => ({ id: m.id, subject: m.subject, data: encode(m.payload) }))
        const row = messages.length > 0 ? { id: randomUUID(), messages } : undefined
        if (row) rows.push(row)
        // Sent together (one round trip). The fence check is last in the transaction: the share lock on the lease
        // row is held only for the commit itself, so rows waited on above never delay renewals; a takeover still
        // waits for this commit or makes it fail.
        const last = phase === scopes.size
        yield* tryQuery(() => Promise.all([
          fresh.length > 0
            ? tx`
              INSERT INTO inbox (envelope_id, tenant_id, actor, actor_key, reply, owner, epoch)
              SELECT e, ${tenantId}, ${actor.protocol.name}, k, decode(r, 'base64'), o, p::bigint
              FROM unnest(${fresh.map((i) => envelopes[i]!.id)}::text[], ${fresh.map((i) => envelopes[i]!.key)}::text[],
                ${fresh.map((i) => Buffer.from(encode(results[i]!.exit)).toString("base64"))}::text[],
                ${fresh.map((i) => fence(i)?.owner ?? null)}::text[], ${fresh.map((i) => fence(i)?.epoch.toString() ?? null)}::text[])
                AS x(e, k, r, o, p)`
            : undefined,
          // A batch row's subject only names its deployment (for the relay's sweep); each message keeps its own.
          row ? tx`INSERT INTO outbox (id, tenant_id, subject, payload, batch) VALUES (${row.id}, ${tenantId}, ${`${options.namespace}.batch`}, ${Buffer.from(encode(row.messages))}, true)` : undefined,
          last ? checkFences(tx, distinctFences(options.fences ?? [])) : undefined
        ]))
      }
      return { results, rows } satisfies GroupApplied
    }))
})

/**
 * One wave: set-based messages through their wave handler, the others one envelope each, all concurrently; a serial
 * actor's envelopes one after another, in wave order (Actor.serial).
 */
const applyWave = (actor: AnyActor, envelopes: ReadonlyArray<Envelope>, wave: ReadonlyArray<number>, results: Array<Applied>) =>
  actor.serial === true
    ? Effect.forEach(wave, (i) => applyOfType(actor, envelopes, envelopes[i]!.type, [i], results), { discard: true })
    : Effect.forEach(groupBy(wave, (i) => envelopes[i]!.type), ([type, indices]) => applyOfType(actor, envelopes, type, indices, results), {
      concurrency: "unbounded",
      discard: true
    })

/** Envelopes of one message type in a wave: together through its wave handler, or one each, concurrently. */
const applyOfType = (actor: AnyActor, envelopes: ReadonlyArray<Envelope>, type: string, indices: ReadonlyArray<number>, results: Array<Applied>) => {
  const handler = actor.handlers[type]
  const codec = actor.protocol.codecs[type]
  if (handler === undefined || codec === undefined) {
    return Effect.die(new Error(`${actor.protocol.name} actor: unknown message ${type}`))
  }
  if (isWaveHandler(handler)) {
    return Effect.suspend(() =>
      handler.wave(indices.map((i) => ({ envelopeId: envelopes[i]!.id, payload: codec.decodePayload(envelopes[i]!.payload) })))
    ).pipe(Effect.map((answers) => {
      indices.forEach((i, k) => {
        const { result, outbox } = answers[k]!
        const exit: ReplyExit = Result.isSuccess(result)
          ? { _tag: "Success", value: codec.encodeSuccess(result.success) }
          : { _tag: "Failure", error: codec.encodeError(result.failure) }
        results[i] = { exit, outbox, duplicate: false }
      })
    }))
  }
  return Effect.forEach(indices, (i) => {
    const envelope = envelopes[i]!
    const outbox: Array<OutboxMessage> = []
    return Effect.suspend(() => handler(codec.decodePayload(envelope.payload))).pipe(
      Effect.map((value): ReplyExit => ({ _tag: "Success", value: codec.encodeSuccess(value) })),
      Effect.catch((error) =>
        isDatabaseFailure(error)
          ? Effect.fail(error)
          : Effect.succeed<ReplyExit>({ _tag: "Failure", error: codec.encodeError(error) })),
      Effect.map((exit) => {
        results[i] = { exit, outbox, duplicate: false }
      }),
      Effect.provideService(ActorTransaction, { envelopeId: envelope.id, sentAt: envelope.sent_at, emit: (m) => void outbox.push(m) })
    )
  }, { concurrency: "unbounded", discard: true })
}

/** Runtime statements: a lost lease stays itself (the partition is abandoned), anything else is a database failure. */
const tryQuery = <A>(f: () => Promise<A>): Effect.Effect<A, DatabaseFailure | LeaseLost> =>
  Effect.tryPromise({ try: f, catch: (e) => (e instanceof LeaseLost ? e : databaseFailure(e)) })

const groupBy = <A>(items: ReadonlyArray<A>, keyOf: (a: A) => string): Map<string, Array<A>> => {
  const groups = new Map<string, Array<A>>()
  for (const item of items) {
    const k = keyOf(item)
    const g = groups.get(k)
    if (g) g.push(item)
    else groups.set(k, [item])
  }
  return groups
}

const distinctFences = (fences: ReadonlyArray<Fence | undefined>): Array<Fence> =>
  [...new Map(fences.flatMap((f) => (f ? [[f.partition, f] as const] : []))).values()]
