import { Effect } from "effect"
import type { Database } from "../../core/db/Database.ts"
import type { DatabaseFailure } from "../../core/db/DatabaseFailure.ts"
import { JourneyStatuses } from "../../schemas/journey.ts"
import { isJourneyRefusal, JourneyDefinitions, type JourneyRefusal } from "../journey/JourneyDefinitions.ts"
import type { TenancyError } from "../tenancy/Tenancy.ts"
import { need, refused, scopeOf } from "./channelFlags.ts"

export const JOURNEY_USAGE = `  journey list --tenant ID [--test] [--status draft|active|paused|archived]   -> {"journeys":[...]} newest first (100)
  journey show --tenant ID [--test] --id J     -> the journey with its current definition (as GET /api/v1/journeys/{id})
  journey activate|pause|archive --tenant ID [--test] --id J   -> the journey in its new status (as the API's actions)`

/** The flags of the journey commands (beside main.ts's own: tenant, test). */
export const JOURNEY_OPTIONS = {
  id: { type: "string" },
  status: { type: "string" }
} as const

export interface JourneyFlags {
  readonly tenant?: string | undefined
  readonly test?: boolean | undefined
  readonly id?: string | undefined
  readonly status?: string | undefined
}

/** An API refusal as the CLI's error: its message, with the fields it names. */
const fromRefusal = (e: JourneyRefusal) => {
  const fields = Object.keys(e.error.details).filter((f) => !e.error.message.includes(f))
  return refused(fields.length > 0 ? `${e.error.message} (${fields.join(", ")})` : e.error.message)
}

const run = (action: string | undefined, flags: JourneyFlags) =>
  Effect.gen(function*() {
    const journeys = yield* JourneyDefinitions
    const scope = yield* scopeOf(flags)
    switch (action) {
      case "list": {
        if (flags.status !== undefined && !(JourneyStatuses as ReadonlyArray<string>).includes(flags.status)) {
          return yield* Effect.fail(refused(`--status must be one of: ${JourneyStatuses.join(", ")}`))
        }
        const page = yield* journeys.list(scope, { status: flags.status }, { limit: 100, after: undefined })
        return { journeys: page.journeys }
      }
      case "show":
        return yield* journeys.get(scope, yield* need("id", flags.id))
      case "activate":
      case "pause":
      case "archive":
        return yield* journeys.transition(scope, yield* need("id", flags.id), action)
      default:
        return yield* Effect.fail(refused(`unknown command: journey ${action ?? ""} (list, show, activate, pause or archive)`))
    }
  })

/** `gep journey ...`: the journeys API's reads and status changes for an operator, with its rules and refusals. */
export const journeyCommand = (args: ReadonlyArray<string>, flags: JourneyFlags) =>
  (run(args[0], flags) as Effect.Effect<unknown, TenancyError | JourneyRefusal | DatabaseFailure, JourneyDefinitions | Database>).pipe(
    Effect.catchIf(isJourneyRefusal, (e) => Effect.fail(fromRefusal(e))),
    Effect.provide(JourneyDefinitions.layer)
  )
