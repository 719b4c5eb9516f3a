import { Context, Effect, Layer } from "effect"
import { inTenantOf, Refused } from "../http/inTenant.ts"
import { randomUUID } from "node:crypto"
import { Database, type Tx } from "../../core/db/Database.ts"
import type { DatabaseFailure } from "../../core/db/DatabaseFailure.ts"
import { checkAccount, checkDefinition, type Issue } from "../../core/journey/validate.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import { Conflict, NotFound, PreconditionFailed, Unprocessable, ValidationFailed } from "../../schemas/errors.ts"
import type { JourneyDefinition, JourneyStatus } from "../../schemas/journey.ts"
import type { CreateJourneyRequest, JourneyView, PatchJourneyRequest } from "../../schemas/journeyApi.ts"
import { matches } from "../http/etag.ts"
import { canonicalJson as canonical } from "../../core/canonicalJson.ts"
import { invalidDefinition } from "./edge.ts"
import { accountFacts, insertJourney, type JourneyFilters, listJourneys, readJourney, saveVersion, setStatus, storedDefinition } from "./store.ts"
import type { PageRequest } from "../http/paging.ts"

/** Why a definition change or read is refused; nothing of it was written. */
export type JourneyRefusal = NotFound | Conflict | PreconditionFailed | Unprocessable | ValidationFailed

export const isJourneyRefusal = (e: unknown): e is JourneyRefusal =>
  e instanceof NotFound || e instanceof Conflict || e instanceof PreconditionFailed || e instanceof Unprocessable || e instanceof ValidationFailed

export const journeyNotFound = (id: string) => NotFound.of(`No journey with id ${JSON.stringify(id)}`, { id: ["not found"] })
const archived = (id: string) =>
  Conflict.of("JOURNEY_ARCHIVED", `Journey ${id} is archived: it cannot change any more (create a new one)`, { status: ["archived"] })

export type Transition = "activate" | "pause" | "archive"

/** What a status becomes on a transition: a new status, the same (a repeat), or a refusal. */
const next = (id: string, action: Transition, status: JourneyStatus): JourneyStatus | "same" | JourneyRefusal => {
  if (action === "archive") return status === "archived" ? "same" : "archived"
  if (status === "archived") return archived(id)
  if (action === "activate") return status === "active" ? "same" : "active"
  if (status === "draft") return Conflict.of("JOURNEY_NOT_ACTIVE", `Journey ${id} is a draft: only an active journey pauses`, { status: ["draft"] })
  return status === "paused" ? "same" : "paused"
}

/** Every problem of a definition, its own and against the account; else the warnings to answer with it. */
const check = async (tx: Tx, scope: TenantScope, d: JourneyDefinition): Promise<Refused<Unprocessable> | ReadonlyArray<Issue>> => {
  const own = checkDefinition(d)
  const account = checkAccount(d, await accountFacts(tx, scope, d.hotel_ids ?? []))
  const errors = [...own.errors, ...account.errors]
  return errors.length > 0 ? new Refused(invalidDefinition(errors)) : [...own.warnings, ...account.warnings]
}

type JourneyPage = Awaited<ReturnType<typeof listJourneys>>

const definitionOf = (j: JourneyView): JourneyDefinition => ({ name: j.name, hotel_ids: j.hotel_ids, trigger: j.trigger, steps: j.steps })

type Result<A, E extends JourneyRefusal = JourneyRefusal> = Effect.Effect<A, E | DatabaseFailure>

/**
 * Journey definitions of one account and mode, for the journeys API and the CLI alike (the same checks and refusals).
 * Every change is one transaction confined to the tenant by row-level security, the journey's header row locked: the
 * header and a new immutable version are written together, or nothing is.
 */
export class JourneyDefinitions extends Context.Service<JourneyDefinitions, {
  readonly create: (scope: TenantScope, r: CreateJourneyRequest) => Result<{ journey_id: string; version: number; status: JourneyStatus; warnings: ReadonlyArray<Issue> }, Unprocessable>
  readonly list: (scope: TenantScope, f: JourneyFilters, page: PageRequest) => Result<JourneyPage>
  readonly get: (scope: TenantScope, id: string) => Result<JourneyView, NotFound>
  readonly update: (scope: TenantScope, id: string, patch: PatchJourneyRequest, ifMatch: string | undefined) => Result<JourneyView & { warnings: ReadonlyArray<Issue> }>
  readonly transition: (scope: TenantScope, id: string, action: Transition) => Result<JourneyView, NotFound | Conflict | Unprocessable>
}>()("app/journey/JourneyDefinitions") {
  static readonly layer = Layer.effect(JourneyDefinitions, Effect.gen(function*() {
    const db = yield* Database

    // The refusals each method can decide are its own (the service's signature names them per method).
    const inTenant = inTenantOf(db)

    return JourneyDefinitions.of({
      create: Effect.fn("JourneyDefinitions.create")(function*(scope, r) {
        const { status = "draft", ...definition } = r
        const id = randomUUID()
        const warnings = yield* inTenant<ReadonlyArray<Issue>, Unprocessable>(scope, async (tx) => {
          const checked = await check(tx, scope, definition)
          if (checked instanceof Refused) return checked
          await insertJourney(tx, scope, id, definition, status)
          return checked
        })
        yield* Effect.logInfo("journey created").pipe(Effect.annotateLogs({ tenant_id: scope.tenant_id, journey_id: id, status }))
        return { journey_id: id, version: 1, status, warnings }
      }),
      list: (scope, f, page) =>
        inTenant<JourneyPage, never>(scope, (tx) => listJourneys(tx, scope, f, page)),
      get: (scope, id) => inTenant<JourneyView, NotFound>(scope, async (tx) => (await readJourney(tx, scope, id)) ?? new Refused(journeyNotFound(id))),
      update: Effect.fn("JourneyDefinitions.update")(function*(scope, id, patch, ifMatch) {
        return yield* inTenant<JourneyView & { warnings: ReadonlyArray<Issue> }, JourneyRefusal>(scope, async (tx) => {
          const current = await readJourney(tx, scope, id, true)
          if (current === undefined) return new Refused(journeyNotFound(id))
          if (current.status === "archived") return new Refused(archived(id))
          if (ifMatch !== undefined && !matches(ifMatch, current.version)) {
            return new Refused(PreconditionFailed.of(`Journey ${id} is at version ${current.version}, not the one If-Match names`, {
              "if-match": [`the current version's ETag is "v${current.version}"`]
            }))
          }
          const before = definitionOf(current)
          const merged: JourneyDefinition = {
            name: patch.name ?? before.name,
            hotel_ids: patch.hotel_ids ?? before.hotel_ids,
            trigger: patch.trigger ?? before.trigger,
            steps: patch.steps ?? before.steps
          }
          const checked = await check(tx, scope, merged)
          if (checked instanceof Refused) return checked
          // A change that changes nothing keeps the version.
          if (canonical(storedDefinition(merged)) !== canonical(storedDefinition(before))) {
            await saveVersion(tx, scope, id, current.version + 1, merged)
          }
          return { ...(await readJourney(tx, scope, id))!, warnings: checked }
        })
      }),
      transition: Effect.fn("JourneyDefinitions.transition")(function*(scope, id, action) {
        return yield* inTenant<JourneyView, NotFound | Conflict | Unprocessable>(scope, async (tx) => {
          const current = await readJourney(tx, scope, id, true)
          if (current === undefined) return new Refused(journeyNotFound(id))
          const to = next(id, action, current.status)
          if (typeof to !== "string") return new Refused(to)
          if (to === "same") return current
          if (to === "active") {
            // The account may have changed since the save (a template unregistered): checked again before it takes entries.
            const checked = await check(tx, scope, definitionOf(current))
            if (checked instanceof Refused) return checked
          }
          await setStatus(tx, scope, id, to)
          return (await readJourney(tx, scope, id))!
        })
      })
    })
  }))
}
