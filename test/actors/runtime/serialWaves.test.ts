import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { randomBytes, randomUUID } from "node:crypto"
import * as Actor from "../../../actors/runtime/Actor.ts"
import { applyGroup } from "../../../actors/runtime/applyGroup.ts"
import { makePrivacyKey, PrivacyKey } from "../../../core/privacy/PrivacyKey.ts"
import * as ActorProtocol from "../../../streams/ActorProtocol.ts"
import { ENVELOPE_VERSION, type Envelope } from "../../../streams/envelope.ts"
import { testSql } from "../../support/platform.ts"

// Actor.make(..., { serial: true }) against PostgreSQL: a wave's envelopes of different message types apply one after
// another in wave order, each seeing what the ones before it wrote in the group's transaction; by default the message
// types of a wave run concurrently.

const sql = testSql()
afterAll(() => sql.end())

const Write = Schema.Struct({ key: Schema.String, label: Schema.String })
class Refused extends Schema.TaggedError<Refused>()("Refused", { label: Schema.String }) {}

const ProbeProtocol = ActorProtocol.make("probe", {
  key: (p) => p.key,
  messages: {
    slow: ActorProtocol.message({ payload: Write, success: Schema.String }),
    fast: ActorProtocol.message({ payload: Write, success: Schema.String, error: Refused })
  }
})

/**
 * Appends the label to a transaction-local setting and answers what was there before: what this envelope saw of the
 * envelopes applied before it in the transaction.
 */
const append = (label: string) =>
  Effect.map(
    Actor.query((tx) => tx`SELECT coalesce(current_setting('probe.seen', true), '') AS seen, set_config('probe.seen',
      coalesce(current_setting('probe.seen', true), '') || ${label}, true)`),
    (rows) => rows[0]!.seen as string
  )

const handlers: Actor.Handlers<typeof ProbeProtocol.messages> = {
  slow: ({ label }) => Effect.andThen(Effect.sleep(40), append(label)),
  fast: ({ label }) => (label === "x" ? Effect.fail(new Refused({ label })) : append(label))
}

const tenantId = randomUUID()
const envelope = (type: "slow" | "fast", label: string): Envelope => {
  const key = `${label}-${randomUUID()}`
  return { v: ENVELOPE_VERSION, id: randomUUID(), actor: "probe", type, tenant_id: tenantId, sandbox: false, key, payload: { key, label }, sent_at: Date.now() }
}

/** One wave (every key distinct): slow a, fast b, fast x (refused), slow c, fast d. */
const applyWave = (actor: Actor.AnyActor) => {
  const wave = [envelope("slow", "a"), envelope("fast", "b"), envelope("fast", "x"), envelope("slow", "c"), envelope("fast", "d")]
  return Effect.runPromise(applyGroup(sql, actor, wave, { namespace: `serial_${randomUUID().slice(0, 8)}`, partitions: 4 }).pipe(
    Effect.provideService(PrivacyKey, makePrivacyKey(randomBytes(32)))
  ))
    .then((applied) => applied.results.map((r) => r.exit))
}

describe("serial actors", () => {
  it("apply a wave's envelopes one after another in wave order, across message types, each seeing the writes before it", async () => {
    const exits = await applyWave(Actor.make(ProbeProtocol, handlers, { serial: true }))
    expect(exits).toEqual([
      { _tag: "Success", value: "" },
      { _tag: "Success", value: "a" },
      { _tag: "Failure", error: { _tag: "Refused", label: "x" } },
      { _tag: "Success", value: "ab" },
      { _tag: "Success", value: "abc" }
    ])
  })

  it("by default run the wave's message types concurrently: the fast writes do not wait for the slow ones", async () => {
    const exits = await applyWave(Actor.make(ProbeProtocol, handlers))
    expect(exits[1]).toEqual({ _tag: "Success", value: "" })
    expect(exits[4]).toEqual({ _tag: "Success", value: "b" })
    expect(exits[0]).toEqual({ _tag: "Success", value: "bd" })
  })
})
