import { Effect } from "effect"
import { callerScope as scope, orDieOnDatabase } from "../http/handlerContext.ts"
import { HttpApiBuilder } from "effect/http-api"
import { JourneyProtocol } from "../../actors/journey/protocol.ts"
import { actAsTenant, Database, type Tx } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import { Api, CurrentPrincipal } from "../../schemas/api.ts"
import { isUuid } from "../../schemas/common.ts"
import { NotFound, ValidationFailed } from "../../schemas/errors.ts"
import { JourneyStatuses, RunStates } from "../../schemas/journey.ts"
import { ActorClient } from "../../streams/ActorClient.ts"
import { answered, ok } from "../http/answers.ts"
import { pageRequest } from "../http/paging.ts"
import { withEtag } from "../http/etag.ts"
import { JourneyDefinitions, journeyNotFound } from "./JourneyDefinitions.ts"
import { journeyRuns, readRun } from "./runs.ts"
import { readJourney } from "./store.ts"

const runNotFound = (id: string) => NotFound.of(`No journey run with id ${JSON.stringify(id)}`, { run_id: ["not found"] })
const badQuery = (field: string, message: string) => ValidationFailed.of(`Invalid request: ${field} ${message}`, { [field]: [message] })


export const JourneysLive = HttpApiBuilder.group(Api, "journeys", (handlers) =>
  Effect.gen(function*() {
    const db = yield* Database
    const actors = yield* ActorClient
    const journeys = yield* JourneyDefinitions

    /** A read confined to the caller's tenant (row-level security) and mode. */
    const read = <A>(f: (tx: Tx, s: TenantScope) => Promise<A>) =>
      Effect.flatMap(scope, (s) => db.query((sql) => sql.begin(async (tx) => {
        await actAsTenant(tx, s.tenant_id)
        return f(tx, s)
      }) as Promise<A>))

    const transition = (action: "activate" | "pause" | "archive") => ({ params }: { params: { id: string } }) =>
      Effect.flatMap(scope, (s) => orDieOnDatabase(journeys.transition(s, params.id, action))).pipe(Effect.map(ok))

    return handlers
      .handle("create", ({ payload }) => Effect.flatMap(scope, (s) => orDieOnDatabase(journeys.create(s, payload))).pipe(Effect.map(ok)))
      .handle("list", Effect.fn("Journeys.list")(function*({ query }) {
        const page = yield* pageRequest(query)
        if (query.status !== undefined && !(JourneyStatuses as ReadonlyArray<string>).includes(query.status)) {
          return yield* badQuery("status", `must be one of: ${JourneyStatuses.join(", ")}`)
        }
        if (query.hotel_id !== undefined && !isUuid(query.hotel_id)) return yield* badQuery("hotel_id", "must be a UUID")
        return ok(yield* orDieOnDatabase(journeys.list(yield* scope, query, page)))
      }))
      .handle("get", Effect.fn("Journeys.get")(function*({ params }) {
        const found = yield* orDieOnDatabase(journeys.get(yield* scope, params.id))
        yield* withEtag(found.version)
        return ok(found)
      }))
      .handle("update", Effect.fn("Journeys.update")(function*({ params, headers, payload }) {
        const saved = yield* orDieOnDatabase(journeys.update(yield* scope, params.id, payload, headers["if-match"]))
        yield* withEtag(saved.version)
        return ok(saved)
      }))
      .handle("activate", transition("activate"))
      .handle("pause", transition("pause"))
      .handle("archive", transition("archive"))
      .handle("runs", Effect.fn("Journeys.runs")(function*({ params, query }) {
        const request = yield* pageRequest(query)
        if (query.state !== undefined && !(RunStates as ReadonlyArray<string>).includes(query.state)) {
          return yield* badQuery("state", `must be one of: ${RunStates.join(", ")}`)
        }
        if (query.contact_id !== undefined && !isUuid(query.contact_id)) return yield* badQuery("contact_id", "must be a UUID")
        const page = yield* read(async (tx, s) =>
          (await readJourney(tx, s, params.id)) === undefined
            ? undefined
            : journeyRuns(tx, params.id, { ...request, state: query.state, contact_id: query.contact_id }))
        if (page === undefined) return yield* journeyNotFound(params.id)
        return ok(page)
      }))
      .handle("run", Effect.fn("Journeys.run")(function*({ params }) {
        const found = yield* read((tx, s) => readRun(tx, s, params.run_id))
        if (found === undefined) return yield* runNotFound(params.run_id)
        return ok(found)
      }))
      .handle("stopRun", Effect.fn("Journeys.stopRun")(function*({ params }) {
        const principal = yield* CurrentPrincipal
        const found = yield* read((tx, s) => readRun(tx, s, params.run_id))
        if (found === undefined) return yield* runNotFound(params.run_id)
        // Keyed by the contact, like every signal and wake of its runs: the stop applies in order with them.
        yield* answered(actors.for(JourneyProtocol, principal).stop({ contact_id: found.contact_id, run_id: found.run_id })).pipe(
          Effect.catchTag("RunNotFound", () => Effect.fail(runNotFound(params.run_id))))
        return ok((yield* read((tx, s) => readRun(tx, s, params.run_id)))!)
      }))
  }))
