import { Context, Effect, Layer, Redacted } from "effect"
import { inTenantOf, Refused } from "../http/inTenant.ts"
import type { EmailChannelRequest, EmailChannelView, WhatsAppChannelRequest, WhatsAppChannelView, WhatsAppTemplate } from "../../schemas/channel.ts"
import { Conflict, NotFound, Unprocessable, ValidationFailed } from "../../schemas/errors.ts"
import { encryptChannelSecret, type SenderIdentity } from "../../core/channel/repository.ts"
import { emailView, mergeEmailChannel, modeOf, planWhatsAppChange, whatsAppView, withHotelOverride } from "../../core/channel/settings.ts"
import * as Store from "../../core/channel/store.ts"
import { Database } from "../../core/db/Database.ts"
import type { DatabaseFailure } from "../../core/db/DatabaseFailure.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import { WebhookConfig } from "../../core/webhook/WebhookConfig.ts"

/** Why a configuration change is refused; nothing of it was written. */
export type ChannelRefusal = ValidationFailed | Unprocessable | Conflict | NotFound

export const isChannelRefusal = (e: unknown): e is ChannelRefusal =>
  e instanceof ValidationFailed || e instanceof Unprocessable || e instanceof Conflict || e instanceof NotFound

const notConfigured = (scope: TenantScope, channel: "email" | "whatsapp") =>
  NotFound.of(
    `The ${channel} channel is not configured for this account's ${modeOf(scope)} mode: PUT /api/v1/channels/${channel} first`,
    { channel: [`${channel} is not configured (${modeOf(scope)} mode)`] },
    "CHANNEL_NOT_CONFIGURED"
  )

/**
 * Channel configuration of one account and mode, for the channel API and the CLI alike (the same rules and the same
 * refusals either way). Every change is one transaction confined to the tenant by row-level security; a refusal writes
 * nothing. Secrets are encrypted before they reach a SQL statement, so no query parameter ever holds one.
 */
export class ChannelSettings extends Context.Service<ChannelSettings, {
  readonly email: (scope: TenantScope) => Effect.Effect<EmailChannelView, ChannelRefusal | DatabaseFailure>
  readonly putEmail: (scope: TenantScope, r: EmailChannelRequest) => Effect.Effect<EmailChannelView, ChannelRefusal | DatabaseFailure>
  /** One hotel's sender (by hotel id or code), or its removal with `null`; the email channel must exist. */
  readonly putHotelOverride: (scope: TenantScope, hotel: string, override: SenderIdentity | null) => Effect.Effect<EmailChannelView, ChannelRefusal | DatabaseFailure>
  readonly whatsApp: (scope: TenantScope) => Effect.Effect<WhatsAppChannelView, ChannelRefusal | DatabaseFailure>
  readonly putWhatsApp: (scope: TenantScope, r: WhatsAppChannelRequest) => Effect.Effect<WhatsAppChannelView, ChannelRefusal | DatabaseFailure>
  readonly putTemplate: (scope: TenantScope, t: WhatsAppTemplate) => Effect.Effect<WhatsAppTemplate, ChannelRefusal | DatabaseFailure>
  readonly removeTemplate: (scope: TenantScope, name: string, language: string) => Effect.Effect<void, ChannelRefusal | DatabaseFailure>
}>()("app/channel/ChannelSettings") {
  static readonly layer = Layer.effect(ChannelSettings, Effect.gen(function*() {
    const db = yield* Database
    const config = yield* WebhookConfig
    const key = () => Redacted.value(config.encryptionKey)

    const inTenant = inTenantOf(db)

    const unknownHotels = (ids: ReadonlyArray<string>) =>
      new Refused(Unprocessable.of(
        "HOTEL_NOT_FOUND",
        `No hotel with id ${ids.map((id) => JSON.stringify(id)).join(", ")} in this account`,
        Object.fromEntries(ids.map((id) => [`hotel_overrides.${id}`, ["is not a hotel id of this account"]]))
      ))

    const email = Effect.fn("ChannelSettings.email")(function*(scope: TenantScope) {
      return yield* inTenant(scope, async (tx) => {
        const row = await Store.readEmailChannelRecord(tx, scope)
        return row ? emailView(scope, row) : new Refused(notConfigured(scope, "email"))
      })
    })

    const putEmail = Effect.fn("ChannelSettings.putEmail")(function*(scope: TenantScope, r: EmailChannelRequest) {
      const view = yield* inTenant(scope, async (tx) => {
        const unknown = await Store.hotelsNotOfTenant(tx, scope.tenant_id, Object.keys(r.hotel_overrides ?? {}))
        if (unknown.length > 0) return unknownHotels(unknown)
        const current = await Store.readEmailChannelRecord(tx, scope, true)
        return emailView(scope, await Store.writeEmailChannel(tx, scope, mergeEmailChannel(current, r)))
      })
      yield* Effect.logInfo("email channel configured").pipe(Effect.annotateLogs({
        tenant_id: scope.tenant_id, mode: view.mode, hotel_overrides: Object.keys(view.hotel_overrides).length
      }))
      return view
    })

    const putHotelOverride = Effect.fn("ChannelSettings.putHotelOverride")(function*(scope: TenantScope, hotel: string, override: SenderIdentity | null) {
      return yield* inTenant(scope, async (tx) => {
        const hotelId = await Store.findHotel(tx, scope.tenant_id, hotel)
        if (hotelId === null) {
          return new Refused(Unprocessable.of("HOTEL_NOT_FOUND", `No hotel with id or code ${JSON.stringify(hotel)} in this account`, { hotel: ["no such hotel"] }))
        }
        const current = await Store.readEmailChannelRecord(tx, scope, true)
        if (current === null) return new Refused(notConfigured(scope, "email"))
        return emailView(scope, await Store.writeEmailChannel(tx, scope, withHotelOverride(current, hotelId, override)))
      })
    })

    const whatsApp = Effect.fn("ChannelSettings.whatsApp")(function*(scope: TenantScope) {
      return yield* inTenant(scope, async (tx) => {
        const row = await Store.readWhatsAppChannelRecord(tx, scope)
        return row ? whatsAppView(scope, row, await Store.listTemplates(tx, scope)) : new Refused(notConfigured(scope, "whatsapp"))
      })
    })

    const putWhatsApp = Effect.fn("ChannelSettings.putWhatsApp")(function*(scope: TenantScope, r: WhatsAppChannelRequest) {
      const view = yield* inTenant(scope, async (tx) => {
        const current = await Store.readWhatsAppChannelRecord(tx, scope, true)
        const change = planWhatsAppChange(current, r)
        if ("missing" in change) {
          return new Refused(ValidationFailed.of(
            `Invalid request: ${change.missing.join(" and ")} ${change.missing.length > 1 ? "are" : "is"} required to configure the WhatsApp channel`,
            Object.fromEntries(change.missing.map((f) => [f, ["is required when the channel is first configured"]]))
          ))
        }
        const seal = (field: "access_token" | "app_secret", plain: string | undefined, stored: Uint8Array | undefined) =>
          plain !== undefined ? encryptChannelSecret(key(), scope, field, plain) : stored!
        const written = await Store.writeWhatsAppChannel(tx, scope, {
          phone_number_id: change.phone_number_id,
          access_token_encrypted: seal("access_token", change.access_token, current?.access_token_encrypted),
          app_secret_encrypted: seal("app_secret", change.app_secret, current?.app_secret_encrypted),
          verify_token_sha256: change.verify_token_sha256,
          send_rate_per_minute: change.send_rate_per_minute
        })
        if (written === "phone_number_id_taken") {
          return new Refused(Conflict.of("PHONE_NUMBER_ID_TAKEN", `The WhatsApp phone number id ${JSON.stringify(r.phone_number_id)} is already configured by another account or mode`, {
            phone_number_id: ["is already configured by another account or mode"]
          }))
        }
        if (change.templates !== undefined) await Store.replaceTemplates(tx, scope, change.templates)
        return whatsAppView(scope, written, await Store.listTemplates(tx, scope))
      })
      // Which secrets changed, never their values.
      yield* Effect.logInfo("whatsapp channel configured").pipe(Effect.annotateLogs({
        tenant_id: scope.tenant_id, mode: view.mode, phone_number_id: view.phone_number_id,
        access_token_rotated: r.access_token !== undefined, app_secret_rotated: r.app_secret !== undefined,
        templates: view.templates.length
      }))
      return view
    })

    const putTemplate = Effect.fn("ChannelSettings.putTemplate")(function*(scope: TenantScope, t: WhatsAppTemplate) {
      return yield* inTenant(scope, async (tx) => {
        if ((await Store.readWhatsAppChannelRecord(tx, scope, true)) === null) return new Refused(notConfigured(scope, "whatsapp"))
        await Store.upsertTemplate(tx, scope, t)
        await Store.touchWhatsAppChannel(tx, scope)
        return t
      })
    })

    const removeTemplate = Effect.fn("ChannelSettings.removeTemplate")(function*(scope: TenantScope, name: string, language: string) {
      return yield* inTenant(scope, async (tx) => {
        if ((await Store.readWhatsAppChannelRecord(tx, scope, true)) === null) return new Refused(notConfigured(scope, "whatsapp"))
        if (!(await Store.deleteTemplate(tx, scope, name, language))) {
          return new Refused(NotFound.of(`No template ${name} (${language}) is registered`, { template: ["not registered"] }, "TEMPLATE_NOT_FOUND"))
        }
        await Store.touchWhatsAppChannel(tx, scope)
        return undefined
      })
    })

    return ChannelSettings.of({ email, putEmail, putHotelOverride, whatsApp, putWhatsApp, putTemplate, removeTemplate })
  }))
}
