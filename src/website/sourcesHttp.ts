import { Effect, Redacted } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { MessagingConfig } from "../../core/message/MessagingConfig.ts"
import { Database } from "../../core/db/Database.ts"
import { WebhookConfig } from "../../core/webhook/WebhookConfig.ts"
import { Api } from "../../schemas/api.ts"
import { ok } from "../http/answers.ts"
import { callerScope } from "../http/handlerContext.ts"
import * as Sources from "./SourceCommands.ts"

/** The website sources API: each handler is the shared command in the calling key's account and mode. */
export const WebsiteSourcesLive = HttpApiBuilder.group(Api, "websiteSources", (handlers) =>
  Effect.gen(function*() {
    const { sql } = yield* Database
    const config = yield* WebhookConfig
    const { publicBaseUrl } = yield* MessagingConfig
    const ctx: Sources.SourceContext = { sql, key: Redacted.value(config.encryptionKey), baseUrl: publicBaseUrl }
    const scoped = <A, E, R>(f: (scope: { tenant_id: string; sandbox: boolean }) => Effect.Effect<A, E, R>) => Effect.flatMap(callerScope, f)
    return handlers
      .handle("create", ({ payload }) => scoped((s) => Sources.createSource(ctx, s, payload)))
      // Lists answer the one list shape; their old top-level fields stay one release beside it (the CLI prints the commands' own shape).
      .handle("list", () => Effect.map(scoped((s) => Sources.listSources(ctx, s)), ({ sources }) => ({ ...ok({ sources, next_cursor: null }), sources })))
      .handle("get", ({ params }) => scoped((s) => Sources.getSource(ctx, s, params.id)))
      .handle("update", ({ params, payload }) => scoped((s) => Sources.updateSource(ctx, s, params.id, payload)))
      .handle("remove", ({ params }) => scoped((s) => Sources.removeSource(ctx, s, params.id)))
      .handle("addKey", ({ params, payload }) => scoped((s) => Sources.addKey(ctx, s, params.id, payload.kind)))
      .handle("revokeKey", ({ params }) => scoped((s) => Sources.revokeKey(ctx, s, params.id, params.key_id)))
      .handle("rotateSecret", ({ params }) => scoped((s) => Sources.rotateSecret(ctx, s, params.id)))
      .handle("deliveries", ({ params, query }) => Effect.map(scoped((s) => Sources.deliveries(ctx, s, params.id, query)), (page) => ({ ...ok(page), ...page })))
      .handle("catalogue", ({ params }) => Effect.map(scoped((s) => Sources.catalogue(ctx, s, params.id)), ({ events }) => ({ ...ok({ events, next_cursor: null }), events })))
      .handle("declare", ({ params, payload }) => scoped((s) => Sources.declare(ctx, s, params.id, payload.name, payload.description ?? null)))
  }))
