import type { Tx } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { Confirm, Subscribe } from "./protocol.ts"

// The newsletter actor's rows: its subscription, and the consent a confirmation gives the contact.

export interface SubscriptionRow {
  readonly id: string
  readonly contact_id: string
  readonly status: "pending" | "subscribed"
  readonly nonce: string
  readonly source: string | null
  readonly last_sent_at: Date | null
  /** Confirmation emails of the last 24 hours, oldest first (the resend limits). */
  readonly recent_sends: ReadonlyArray<Date>
}

export const findSubscription = async (tx: Tx, scope: TenantScope, id: string): Promise<SubscriptionRow | undefined> => {
  const [row] = await tx`SELECT id, contact_id, status, nonce, source, last_sent_at, recent_sends FROM newsletter_subscriptions
    WHERE id = ${id} AND tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox}`
  if (row === undefined) return undefined
  return { ...(row as SubscriptionRow), recent_sends: (row.recent_sends as Array<Date | string>).map((d) => new Date(d)) }
}

/**
 * A pending subscription with the nonce of the confirmation email just queued (the last of `recentSends`, this
 * sign-up's moment), and what this sign-up said.
 */
export const savePending = (tx: Tx, scope: TenantScope, cmd: Subscribe, contactId: string, recentSends: ReadonlyArray<Date>) => {
  const now = recentSends[recentSends.length - 1]!
  return tx`
    INSERT INTO newsletter_subscriptions (id, tenant_id, sandbox, email, contact_id, status, nonce, first_name, language, hotel_id,
      source, consent_text, caller, ip, user_agent, origin, last_sent_at, recent_sends, sends, created_at, updated_at)
    VALUES (${cmd.subscription_id}, ${scope.tenant_id}, ${scope.sandbox}, ${cmd.email}, ${contactId}, 'pending', ${cmd.nonce},
      ${cmd.first_name ?? null}, ${cmd.language ?? null}, ${cmd.hotel_id ?? null}, ${cmd.source ?? null}, ${cmd.consent_text ?? null},
      ${cmd.caller}, ${cmd.ip}, ${cmd.user_agent}, ${cmd.origin}, ${now}, ${recentSends.map((d) => d.toISOString())}::timestamptz[], 1, ${now}, ${now})
    ON CONFLICT (id) DO UPDATE SET contact_id = EXCLUDED.contact_id, nonce = EXCLUDED.nonce,
      first_name = coalesce(EXCLUDED.first_name, newsletter_subscriptions.first_name),
      language = coalesce(EXCLUDED.language, newsletter_subscriptions.language),
      hotel_id = coalesce(EXCLUDED.hotel_id, newsletter_subscriptions.hotel_id),
      source = coalesce(EXCLUDED.source, newsletter_subscriptions.source),
      consent_text = coalesce(EXCLUDED.consent_text, newsletter_subscriptions.consent_text),
      caller = EXCLUDED.caller, ip = EXCLUDED.ip, user_agent = EXCLUDED.user_agent, origin = EXCLUDED.origin,
      last_sent_at = EXCLUDED.last_sent_at, recent_sends = EXCLUDED.recent_sends, sends = newsletter_subscriptions.sends + 1,
      updated_at = EXCLUDED.updated_at`
}

/**
 * The confirm click: the subscription becomes subscribed, and the contact gets email marketing consent with the
 * evidence of the click (source, time, IP, user agent) in consent_records. A confirmed double opt-in is the guest's
 * own, explicit request, so it also lifts an earlier email opt-out (the suppression of bouncing addresses stays).
 */
export const confirmSubscription = async (
  tx: Tx, scope: TenantScope, row: SubscriptionRow, cmd: Confirm, envelopeId: string, now: Date
) => {
  await tx`UPDATE newsletter_subscriptions SET status = 'subscribed', confirmed_at = ${now}, confirm_ip = ${cmd.ip},
    confirm_user_agent = ${cmd.user_agent}, updated_at = ${now} WHERE id = ${row.id}`
  await tx`UPDATE contacts SET email_consent = true, email_opted_out_at = NULL, updated_at = ${now}
    WHERE id = ${row.contact_id} AND tenant_id = ${scope.tenant_id}`
  await tx`
    INSERT INTO consent_records (contact_id, channel, granted, source, envelope_id, captured_at, ip, user_agent, tenant_id, sandbox)
    VALUES (${row.contact_id}, 'email', true, ${`newsletter:${row.source ?? "widget"}`}, ${envelopeId}, ${now}, ${cmd.ip},
      ${cmd.user_agent}, ${scope.tenant_id}, ${scope.sandbox})`
}
