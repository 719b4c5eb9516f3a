import { Effect, Layer } from "effect"
import { EmailChannelRequest, SenderOverride, WhatsAppChannelRequest, WhatsAppTemplate } from "../../schemas/channel.ts"
import type { Database } from "../../core/db/Database.ts"
import type { DatabaseFailure } from "../../core/db/DatabaseFailure.ts"
import { NotFound } from "../../schemas/errors.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import { WebhookConfig } from "../../core/webhook/WebhookConfig.ts"
import { ChannelSettings, isChannelRefusal, type ChannelRefusal } from "../channel/ChannelSettings.ts"
import type { TenancyError } from "../tenancy/Tenancy.ts"
import { type ChannelFlags, clearable, decode, fromRefusal, need, number, optional, refused, scopeOf, secretsFrom } from "./channelFlags.ts"

export { CHANNEL_OPTIONS } from "./channelFlags.ts"

export const CHANNEL_USAGE = `  channel email show --tenant ID [--test]     -> the email sender (as GET /api/v1/channels/email)
  channel email set --tenant ID [--test] [--from A] [--name N] [--reply-to A] [--rate N]
                                               flags not given keep their values; "" clears --name, --reply-to, --rate
  channel email override --tenant ID [--test] --hotel ID|CODE (--from A | --name N | --reply-to A ... | --clear)
  channel whatsapp show --tenant ID [--test]  -> number, templates, which secrets are set (never a secret)
  channel whatsapp set --tenant ID [--test] [--phone-number-id X] [--access-token T] [--app-secret S]
                       [--verify-token V] [--rate N]   a secret given as - is read from stdin
  channel whatsapp template add --tenant ID [--test] --name N --language L --category marketing|utility|authentication --body-parameters N
  channel whatsapp template remove --tenant ID [--test] --name N --language L
  channel whatsapp template list --tenant ID [--test]`


/** A channel not configured yet reads as undefined; any other failure stays one. */
const orUndefinedWhenMissing = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.catchIf(effect, (e) => e instanceof NotFound, () => Effect.succeed(undefined))

const emailCommand = (action: string | undefined, flags: ChannelFlags) =>
  Effect.gen(function*() {
    const settings = yield* ChannelSettings
    const scope = yield* scopeOf(flags)
    switch (action) {
      case "show":
        return yield* settings.email(scope)
      case "set": {
        // --from may be left out once the channel exists: the stored address is kept.
        const from = flags.from ?? (yield* settings.email(scope).pipe(Effect.map((c) => c.from_address), orUndefinedWhenMissing))
        if (from === undefined) return yield* Effect.fail(refused("missing --from (the email channel is not configured yet)"))
        const request = yield* decode(EmailChannelRequest, {
          from_address: from,
          ...clearable("from_name", flags.name),
          ...clearable("reply_to", flags["reply-to"]),
          ...clearable("send_rate_per_minute", flags.rate, number)
        })
        return yield* settings.putEmail(scope, request)
      }
      case "override": {
        const hotel = yield* need("hotel", flags.hotel)
        if (flags.clear) return yield* settings.putHotelOverride(scope, hotel, null)
        const override = yield* decode(SenderOverride, {
          ...optional("from_address", flags.from), ...optional("from_name", flags.name), ...optional("reply_to", flags["reply-to"])
        })
        return yield* settings.putHotelOverride(scope, hotel, override)
      }
      default:
        return yield* Effect.fail(refused(`unknown command: channel email ${action ?? ""}`))
    }
  })

const templateCommand = (action: string | undefined, flags: ChannelFlags, scope: TenantScope) =>
  Effect.gen(function*() {
    const settings = yield* ChannelSettings
    switch (action) {
      case "list":
        return { templates: (yield* settings.whatsApp(scope)).templates }
      case "add": {
        const template = yield* decode(WhatsAppTemplate, {
          name: yield* need("name", flags.name), language: yield* need("language", flags.language),
          category: yield* need("category", flags.category), body_parameters: number(yield* need("body-parameters", flags["body-parameters"]))
        })
        return yield* settings.putTemplate(scope, template)
      }
      case "remove": {
        const name = yield* need("name", flags.name), language = yield* need("language", flags.language)
        yield* settings.removeTemplate(scope, name, language)
        return { name, language, removed: true }
      }
      default:
        return yield* Effect.fail(refused(`unknown command: channel whatsapp template ${action ?? ""}`))
    }
  })

const whatsAppCommand = (action: string | undefined, rest: ReadonlyArray<string>, flags: ChannelFlags) =>
  Effect.gen(function*() {
    const settings = yield* ChannelSettings
    const scope = yield* scopeOf(flags)
    switch (action) {
      case "show":
        return yield* settings.whatsApp(scope)
      case "template":
        return yield* templateCommand(rest[0], flags, scope)
      case "set": {
        const phoneNumberId = flags["phone-number-id"] ??
          (yield* settings.whatsApp(scope).pipe(Effect.map((c) => c.phone_number_id), orUndefinedWhenMissing))
        if (phoneNumberId === undefined) return yield* Effect.fail(refused("missing --phone-number-id (the WhatsApp channel is not configured yet)"))
        const secrets = yield* secretsFrom(flags)
        const request = yield* decode(WhatsAppChannelRequest, {
          phone_number_id: phoneNumberId,
          ...optional("access_token", secrets.access_token),
          ...optional("app_secret", secrets.app_secret),
          ...clearable("verify_token", secrets.verify_token),
          ...clearable("send_rate_per_minute", flags.rate, number)
        })
        return yield* settings.putWhatsApp(scope, request)
      }
      default:
        return yield* Effect.fail(refused(`unknown command: channel whatsapp ${action ?? ""}`))
    }
  })

/** `gep channel email|whatsapp ...`: the channel API's rules and refusals, for an operator; secrets never printed. */
export const channelCommand = (args: ReadonlyArray<string>, flags: ChannelFlags) => {
  const [channel, action, ...rest] = args
  const run = channel === "email"
    ? emailCommand(action, flags)
    : channel === "whatsapp"
    ? whatsAppCommand(action, rest, flags)
    : Effect.fail(refused(`unknown command: channel ${channel ?? ""} (email or whatsapp)`))
  return (run as Effect.Effect<unknown, TenancyError | ChannelRefusal | DatabaseFailure, ChannelSettings | Database>).pipe(
    Effect.catchIf(isChannelRefusal, (e) => Effect.fail(fromRefusal(e))),
    Effect.provide(ChannelSettings.layer.pipe(Layer.provide(WebhookConfig.layer)))
  )
}
