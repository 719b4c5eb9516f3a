import type { EmailChannelRequest, EmailChannelView, WhatsAppChannelRequest, WhatsAppChannelView } from "../../schemas/channel.ts"
import type { TenantScope } from "../TenantScope.ts"
import type { EmailChannel, SenderIdentity, WhatsAppTemplate } from "./repository.ts"
import { verifyTokenDigest } from "./repository.ts"
import type { EmailChannelRecord, WhatsAppChannelRecord } from "./store.ts"

// The rules of a channel PUT, apart from storage: a field sent replaces the stored value, a field not sent keeps it
// (or takes its default on the first PUT), null clears a nullable field. Secrets follow the same rule, so a PUT that
// only changes templates or the rate never needs the secrets again.

const kept = <A>(sent: A | undefined, stored: A | undefined, fallback: A): A => sent !== undefined ? sent : stored !== undefined ? stored : fallback

export const mergeEmailChannel = (current: EmailChannel | null, r: EmailChannelRequest): EmailChannel => ({
  from_address: r.from_address,
  from_name: kept(r.from_name, current?.from_name, null),
  reply_to: kept(r.reply_to, current?.reply_to, null),
  hotel_overrides: kept(r.hotel_overrides, current?.hotel_overrides, {}),
  send_rate_per_minute: kept(r.send_rate_per_minute, current?.send_rate_per_minute, null)
})

/** One hotel's override set (replacing that hotel's entry whole) or removed (`null`); the other hotels stay. */
export const withHotelOverride = (channel: EmailChannel, hotelId: string, override: SenderIdentity | null): EmailChannel => {
  const { [hotelId]: _previous, ...others } = channel.hotel_overrides
  return { ...channel, hotel_overrides: override === null ? others : { ...others, [hotelId]: override } }
}

export type SecretField = "access_token" | "app_secret"

/** What a WhatsApp PUT writes; a secret `undefined` keeps the stored ciphertext, `templates` undefined keeps the set. */
export interface WhatsAppChange {
  readonly phone_number_id: string
  readonly access_token: string | undefined
  readonly app_secret: string | undefined
  readonly verify_token_sha256: string | null
  readonly send_rate_per_minute: number | null
  readonly templates: ReadonlyArray<WhatsAppTemplate> | undefined
}

/** The change a PUT makes, or the secrets a first PUT lacks (both are required to create the channel). */
export const planWhatsAppChange = (
  current: Pick<WhatsAppChannelRecord, "verify_token_sha256" | "send_rate_per_minute"> | null,
  r: WhatsAppChannelRequest
): WhatsAppChange | { readonly missing: ReadonlyArray<SecretField> } => {
  if (current === null) {
    const missing = (["access_token", "app_secret"] as const).filter((f) => r[f] === undefined)
    if (missing.length > 0) return { missing }
  }
  return {
    phone_number_id: r.phone_number_id,
    access_token: r.access_token,
    app_secret: r.app_secret,
    verify_token_sha256: r.verify_token === undefined
      ? current?.verify_token_sha256 ?? null
      : r.verify_token === null ? null : verifyTokenDigest(r.verify_token),
    send_rate_per_minute: kept(r.send_rate_per_minute, current?.send_rate_per_minute, null),
    templates: r.templates
  }
}

export const modeOf = (scope: TenantScope) => (scope.sandbox ? "sandbox" as const : "live" as const)

export const emailView = (scope: TenantScope, r: EmailChannelRecord): EmailChannelView => ({
  mode: modeOf(scope),
  from_address: r.from_address,
  from_name: r.from_name,
  reply_to: r.reply_to,
  hotel_overrides: r.hotel_overrides,
  send_rate_per_minute: r.send_rate_per_minute,
  updated_at: r.updated_at.toISOString()
})

/** The public view of the WhatsApp channel: whether each secret is set, never a secret, encrypted or digested. */
export const whatsAppView = (scope: TenantScope, r: WhatsAppChannelRecord, templates: ReadonlyArray<WhatsAppTemplate>): WhatsAppChannelView => ({
  mode: modeOf(scope),
  phone_number_id: r.phone_number_id,
  access_token_set: r.access_token_encrypted.length > 0,
  app_secret_set: r.app_secret_encrypted.length > 0,
  verify_token_set: r.verify_token_sha256 !== null,
  templates: templates.map((t) => ({ name: t.name, language: t.language, category: t.category, body_parameters: t.body_parameters })),
  send_rate_per_minute: r.send_rate_per_minute,
  updated_at: r.updated_at.toISOString()
})
