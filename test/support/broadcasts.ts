import { Effect, Layer, ManagedRuntime } from "effect"
import { randomUUID } from "node:crypto"
import type postgres from "postgres"
import { MessageProtocol, type SendCommand } from "../../actors/message/protocol.ts"
import { AppConfig, type AppConfigShape } from "../../core/config/AppConfig.ts"
import { deterministicId } from "../../core/deterministicId.ts"
import type { SegmentDefinition } from "../../schemas/segment.ts"
import { ActorClient } from "../../streams/ActorClient.ts"
import { Admission } from "../../streams/Admission.ts"
import { Nats } from "../../streams/Nats.ts"
import type { TestTenant } from "./platform.ts"

/** A broadcast row as the broadcast actor leaves it once its snapshot started (only what the sender reads varies). */
export interface TestBroadcast {
  readonly status?: string
  readonly category?: "marketing" | "utility"
  readonly definition: SegmentDefinition
  readonly exclusions?: ReadonlyArray<SegmentDefinition>
  readonly send_deadline?: Date | null
  readonly quiet_hours?: { readonly from: string; readonly to: string } | null
  readonly hotel_id?: string | null
}

export const insertBroadcast = async (sql: postgres.Sql, tenant: TestTenant, b: TestBroadcast): Promise<string> => {
  const id = randomUUID()
  await sql`INSERT INTO broadcasts (id, tenant_id, sandbox, name, channel, category, audience, definition, exclusions, content,
      hotel_id, quiet_hours, send_deadline, status, phase, started_at, namespace)
    VALUES (${id}, ${tenant.tenant_id}, false, ${`Spring ${id.slice(0, 8)}`}, 'email', ${b.category ?? "marketing"},
      ${sql.json({ definition: b.definition } as never)}, ${sql.json(b.definition as never)}, ${sql.json((b.exclusions ?? []) as never)},
      ${sql.json({ subject: "Spring offer", text: "20% off" })}, ${b.hotel_id ?? null},
      ${b.quiet_hours == null ? null : sql.json(b.quiet_hours as never)}, ${b.send_deadline ?? null}, ${b.status ?? "sending"},
      'dispatching', now(), 'tests')`
  return id
}

/** The message id the broadcast actor derives for a recipient (issue 25 item 5). */
export const broadcastMessageId = (broadcastId: string, contactId: string, channel = "email") =>
  deterministicId(`broadcast:${broadcastId}:${contactId}:${channel}`)

/** The recipient row the snapshot writes, with the contact's zone. */
export const insertRecipient = (sql: postgres.Sql, tenant: TestTenant, broadcastId: string, contactId: string, timeZone: string | null) =>
  sql`INSERT INTO broadcast_recipients (broadcast_id, contact_id, tenant_id, sandbox, message_id, status, time_zone, queued_at)
    VALUES (${broadcastId}, ${contactId}, ${tenant.tenant_id}, false, ${broadcastMessageId(broadcastId, contactId)}, 'queued',
      ${timeZone}, now())`

/**
 * Asks the message actor of a running platform (same namespace) as the broadcast actor's send would reach it: the
 * test's own actor client, since the public API takes no broadcast_id.
 */
export const messageActor = (config: AppConfigShape) => {
  const runtime = ManagedRuntime.make(ActorClient.layer.pipe(
    Layer.provide(Admission.layer),
    Layer.provide(Layer.effect(Nats, Nats.make(config.natsUrl, "gep-test-broadcast"))),
    Layer.provide(Layer.succeed(AppConfig, AppConfig.of(config)))
  ))
  return {
    send: (tenant: TestTenant, cmd: SendCommand) =>
      runtime.runPromise(Effect.flatMap(ActorClient, (actors) =>
        actors.for(MessageProtocol, { tenant_id: tenant.tenant_id, sandbox: false }).send(cmd))),
    close: () => runtime.dispose()
  }
}

/** A broadcast's send to one contact, as the broadcast actor makes it. */
export const broadcastSend = (broadcastId: string, contactId: string): SendCommand => ({
  message_id: broadcastMessageId(broadcastId, contactId),
  contact_id: contactId,
  channel: "email",
  category: "marketing",
  subject: "Spring offer",
  text: "20% off your next stay",
  origin: "broadcast",
  broadcast_id: broadcastId
})
