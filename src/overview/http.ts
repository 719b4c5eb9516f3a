import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Database } from "../../core/db/Database.ts"
import { Api, CurrentPrincipal } from "../../schemas/api.ts"
import { ok } from "../http/answers.ts"
import { overviewRange } from "./range.ts"
import { readOverview } from "./read.ts"

export const OverviewLive = HttpApiBuilder.group(Api, "overview", (handlers) =>
  Effect.gen(function*() {
    const db = yield* Database
    return handlers.handle("get", Effect.fn("Overview.get")(function*({ query }) {
      const principal = yield* CurrentPrincipal
      const range = yield* overviewRange(query)
      const days = yield* db.query((sql) => readOverview(sql, principal, range))
      return ok({ from: range.from, to: range.to, days })
    }))
  }))
