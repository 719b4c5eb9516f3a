import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { DatabaseError, DatabaseUnavailable } from "../../core/db/DatabaseFailure.ts"
import { statusOf, type ApiError } from "../../schemas/errors.ts"
import { ActorDefect, ActorRejected, EnvelopeTooLarge, NotConfirmed } from "../../streams/ActorClient.ts"
import { answered } from "../../src/http/answers.ts"
import { toCoreErrorShape } from "../../src/http/errorShape.ts"

const pgError = (code: string) => Object.assign(new Error(`postgres said ${code}`), { code })

describe("what an actor call's failure is answered with", () => {
  const statusFor = (e: unknown) =>
    Effect.runSync(answered(Effect.fail(e)).pipe(Effect.flip, Effect.map((x) => statusOf(x as ApiError))))

  it("never invites a retry for the request's own data", () => {
    expect(statusFor(new ActorRejected({ message: "a value cannot be stored (SQLSTATE 22P05)" }))).toBe(422)
    expect(statusFor(new EnvelopeTooLarge({ bytes: 2_000_000, maxBytes: 1_048_576 }))).toBe(413)
    expect(statusFor(new NotConfirmed({ stage: "reply" }))).toBe(503)
    expect(statusFor(new ActorDefect({ message: "x" }))).toBe(500)
  })
})

describe("the router's own answers", () => {
  const answer = (e: unknown) => Effect.runPromise(toCoreErrorShape(Effect.die(e) as Effect.Effect<HttpServerResponse.HttpServerResponse>))

  it("answers a value the database refuses at the edge with 422, not 500", async () => {
    const r = await answer(new DatabaseError({ code: "22P05", retryable: false, cause: pgError("22P05") }))
    expect(r.status).toBe(422)
    expect(await answer(new DatabaseError({ code: "42P01", retryable: false, cause: pgError("42P01") })).then((x) => x.status)).toBe(500)
    expect(await answer(new DatabaseUnavailable({ code: "08006", cause: pgError("08006") })).then((x) => x.status)).toBe(503)
  })
})
