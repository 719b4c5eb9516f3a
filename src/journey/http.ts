import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { randomUUID } from "node:crypto"
import { JourneyProtocol } from "../../actors/journey/protocol.ts"
import { actAsTenant, Database, type Tx } from "../../core/db/Database.ts"
import { checkAccount, checkDefinition, type Issue } from "../../core/journey/validate.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import { Api, CurrentPrincipal } from "../../schemas/api.ts"
import { isUuid } from "../../schemas/common.ts"
import { Conflict, NotFound, PreconditionFailed, type Unprocessable, ValidationFailed } from "../../schemas/errors.ts"
import { type JourneyDefinition, JourneyStatuses, RunStates } from "../../schemas/journey.ts"
import { ActorClient } from "../../streams/ActorClient.ts"
import { answered } from "../http/answers.ts"
import { pageLimit } from "../http/cursor.ts"
import { canonical, invalidDefinition, matches, withEtag } from "./edge.ts"
import { journeyRuns, readRun } from "./runs.ts"
import { accountFacts, insertJourney, listJourneys, readJourney, saveVersion, setStatus, storedDefinition } from "./store.ts"

type Refusal = NotFound | Conflict | PreconditionFailed | Unprocessable | ValidationFailed

/** A refusal decided inside the transaction, handed out of it (the transaction then commits nothing). */
class Refused {
  readonly refusal: Refusal
  constructor(refusal: Refusal) {
    this.refusal = refusal
  }
}

const journeyNotFound = (id: string) => NotFound.of(`No journey with id ${JSON.stringify(id)}`, { id: ["not found"] })
const runNotFound = (id: string) => NotFound.of(`No journey run with id ${JSON.stringify(id)}`, { run_id: ["not found"] })
const archived = (id: string) =>
  Conflict.of("JOURNEY_ARCHIVED", `Journey ${id} is archived: it cannot change any more (create a new one)`, { status: ["archived"] })
const badQuery = (field: string, message: string) => ValidationFailed.of(`Invalid request: ${field} ${message}`, { [field]: [message] })

/** Every problem of a definition against the account, or undefined when it may be saved (warnings returned). */
const check = async (tx: Tx, scope: TenantScope, d: JourneyDefinition): Promise<Refused | ReadonlyArray<Issue>> => {
  const own = checkDefinition(d)
  const account = checkAccount(d, await accountFacts(tx, scope, d.hotel_ids ?? []))
  const errors = [...own.errors, ...account.errors]
  return errors.length > 0 ? new Refused(invalidDefinition(errors)) : [...own.warnings, ...account.warnings]
}

const ok = <A>(data: A) => ({ success: true as const, data })

export const JourneysLive = HttpApiBuilder.group(Api, "journeys", (handlers) =>
  Effect.gen(function*() {
    const db = yield* Database
    const actors = yield* ActorClient

    /** One transaction confined to the caller's tenant (row-level security); a refusal commits nothing. */
    const inTenant = <A>(f: (tx: Tx, scope: TenantScope) => Promise<A | Refused>) =>
      Effect.gen(function*() {
        const p = yield* CurrentPrincipal
        const scope: TenantScope = { tenant_id: p.tenant_id, sandbox: p.sandbox }
        const r = yield* db.transaction(async (tx) => {
          await actAsTenant(tx, scope.tenant_id)
          return f(tx, scope)
        })
        return r instanceof Refused ? yield* Effect.fail(r.refusal) : r as A
      })

    /** A status change: `next` says what the current status becomes, or why it may not. */
    const transition = (id: string, next: (status: typeof JourneyStatuses[number]) => "archived" | "active" | "paused" | "same" | Refusal) =>
      inTenant(async (tx, scope) => {
        const current = await readJourney(tx, scope, id, true)
        if (current === undefined) return new Refused(journeyNotFound(id))
        const to = next(current.status)
        if (typeof to !== "string") return new Refused(to)
        if (to === "same") return current
        if (to === "active") {
          // The account may have changed since the save (a template unregistered): checked again before it takes entries.
          const checked = await check(tx, scope, { name: current.name, hotel_ids: current.hotel_ids, trigger: current.trigger, steps: current.steps })
          if (checked instanceof Refused) return checked
        }
        await setStatus(tx, scope, id, to)
        return (await readJourney(tx, scope, id))!
      })

    return handlers
      .handle("create", Effect.fn("Journeys.create")(function*({ payload }) {
        const { status = "draft", ...definition } = payload
        const id = randomUUID()
        const warnings = yield* inTenant(async (tx, scope) => {
          const checked = await check(tx, scope, definition)
          if (checked instanceof Refused) return checked
          await insertJourney(tx, scope, id, definition, status)
          return checked
        })
        return ok({ journey_id: id, version: 1, status, warnings })
      }))
      .handle("list", Effect.fn("Journeys.list")(function*({ query }) {
        const limit = pageLimit(query.limit)
        if (limit === undefined) return yield* badQuery("limit", "must be an integer from 1 to 100")
        if (query.status !== undefined && !(JourneyStatuses as ReadonlyArray<string>).includes(query.status)) {
          return yield* badQuery("status", `must be one of: ${JourneyStatuses.join(", ")}`)
        }
        if (query.hotel_id !== undefined && !isUuid(query.hotel_id)) return yield* badQuery("hotel_id", "must be a UUID")
        const page = yield* inTenant((tx, scope) => listJourneys(tx, scope, query, { cursor: query.cursor, limit }))
        if ("error" in page) return yield* badQuery("cursor", "is not a cursor this API returned")
        return ok(page)
      }))
      .handle("get", Effect.fn("Journeys.get")(function*({ params }) {
        const found = yield* inTenant((tx, scope) => readJourney(tx, scope, params.id))
        if (found === undefined) return yield* journeyNotFound(params.id)
        yield* withEtag(found.version)
        return ok(found)
      }))
      .handle("update", Effect.fn("Journeys.update")(function*({ params, headers, payload }) {
        const ifMatch = headers["if-match"]
        const saved = yield* inTenant(async (tx, scope) => {
          const current = await readJourney(tx, scope, params.id, true)
          if (current === undefined) return new Refused(journeyNotFound(params.id))
          if (current.status === "archived") return new Refused(archived(params.id))
          if (ifMatch !== undefined && !matches(ifMatch, current.version)) {
            return new Refused(PreconditionFailed.of(`Journey ${params.id} is at version ${current.version}, not the one If-Match names`, {
              "if-match": [`the current version's ETag is "v${current.version}"`]
            }))
          }
          const before: JourneyDefinition = { name: current.name, hotel_ids: current.hotel_ids, trigger: current.trigger, steps: current.steps }
          const merged: JourneyDefinition = {
            name: payload.name ?? before.name,
            hotel_ids: payload.hotel_ids ?? before.hotel_ids,
            trigger: payload.trigger ?? before.trigger,
            steps: payload.steps ?? before.steps
          }
          const checked = await check(tx, scope, merged)
          if (checked instanceof Refused) return checked
          // A change that changes nothing keeps the version.
          if (canonical(storedDefinition(merged)) !== canonical(storedDefinition(before))) {
            await saveVersion(tx, scope, params.id, current.version + 1, merged)
          }
          return { view: (await readJourney(tx, scope, params.id))!, warnings: checked }
        })
        yield* withEtag(saved.view.version)
        return ok({ ...saved.view, warnings: saved.warnings })
      }))
      .handle("activate", ({ params }) =>
        transition(params.id, (s) => (s === "archived" ? archived(params.id) : s === "active" ? "same" : "active")).pipe(Effect.map(ok)))
      .handle("pause", ({ params }) =>
        transition(params.id, (s) =>
          s === "archived" ? archived(params.id)
          : s === "draft" ? Conflict.of("JOURNEY_NOT_ACTIVE", `Journey ${params.id} is a draft: only an active journey pauses`, { status: ["draft"] })
          : s === "paused" ? "same" : "paused").pipe(Effect.map(ok)))
      .handle("archive", ({ params }) => transition(params.id, (s) => (s === "archived" ? "same" : "archived")).pipe(Effect.map(ok)))
      .handle("runs", Effect.fn("Journeys.runs")(function*({ params, query }) {
        const limit = pageLimit(query.limit)
        if (limit === undefined) return yield* badQuery("limit", "must be an integer from 1 to 100")
        if (query.state !== undefined && !(RunStates as ReadonlyArray<string>).includes(query.state)) {
          return yield* badQuery("state", `must be one of: ${RunStates.join(", ")}`)
        }
        if (query.contact_id !== undefined && !isUuid(query.contact_id)) return yield* badQuery("contact_id", "must be a UUID")
        const page = yield* inTenant(async (tx, scope) =>
          (await readJourney(tx, scope, params.id)) === undefined
            ? new Refused(journeyNotFound(params.id))
            : journeyRuns(tx, params.id, { cursor: query.cursor, limit, state: query.state, contact_id: query.contact_id }))
        if ("error" in page) return yield* badQuery("cursor", "is not a cursor this API returned")
        return ok(page)
      }))
      .handle("run", Effect.fn("Journeys.run")(function*({ params }) {
        const found = yield* inTenant((tx, scope) => readRun(tx, scope, params.run_id))
        if (found === undefined) return yield* runNotFound(params.run_id)
        return ok(found)
      }))
      .handle("stopRun", Effect.fn("Journeys.stopRun")(function*({ params }) {
        const principal = yield* CurrentPrincipal
        const read = () => inTenant((tx, scope) => readRun(tx, scope, params.run_id))
        const found = yield* read()
        if (found === undefined) return yield* runNotFound(params.run_id)
        // Keyed by the contact, like every signal and wake of its runs: the stop applies in order with them.
        yield* answered(actors.for(JourneyProtocol, principal).stop({ contact_id: found.contact_id, run_id: found.run_id })).pipe(
          Effect.catchTag("RunNotFound", () => Effect.fail(runNotFound(params.run_id))))
        return ok((yield* read())!)
      }))
  }))
