import { Context, Effect, Layer } from "effect"
import { Database } from "../../core/db/Database.ts"
import { errorText } from "../../core/observability/log.ts"
import type { LiveSource } from "./WebSources.ts"

const MAX_REMEMBERED = 50_000

/**
 * The event catalogue's "received" side: the first accepted event of a name marks it received for its source (a
 * declared custom event stops showing "not received"). Each ingress writes a name once (it remembers what it wrote),
 * so traffic does not contend on catalogue rows; a failed write is retried with the next event of that name.
 */
export class Catalogue extends Context.Service<Catalogue, {
  readonly seen: (source: LiveSource, names: ReadonlyArray<string>) => Effect.Effect<void>
}>()("app/website/Catalogue") {
  static readonly layer = Layer.effect(Catalogue, Effect.gen(function*() {
    const { sql } = yield* Database
    const written = new Set<string>()
    const seen = Effect.fn("Catalogue.seen")(function*(source: LiveSource, names: ReadonlyArray<string>) {
      const fresh = [...new Set(names)].filter((n) => !written.has(`${source.id}|${n}`))
      if (fresh.length === 0) return
      yield* Effect.tryPromise(() => sql`
        INSERT INTO website_event_catalogue (source_id, name, tenant_id, sandbox, first_received_at)
        SELECT ${source.id}, n, ${source.scope.tenant_id}, ${source.scope.sandbox}, now() FROM unnest(${fresh}::text[]) AS n
        ON CONFLICT (source_id, name) DO UPDATE SET first_received_at = now()
          WHERE website_event_catalogue.first_received_at IS NULL`).pipe(
        Effect.tap(() => Effect.sync(() => {
          if (written.size >= MAX_REMEMBERED) written.clear()
          for (const n of fresh) written.add(`${source.id}|${n}`)
        })),
        Effect.catch((e) => Effect.logWarning("website catalogue write failed").pipe(Effect.annotateLogs({ error: errorText(e) })))
      )
    })
    return Catalogue.of({ seen })
  }))
}
