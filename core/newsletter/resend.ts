// When a pending address may be sent another confirmation email. A sign-up form is open to anyone: without a cap, a
// script could send an address a confirmation every 10 minutes, all day (the mail-bombing listmonk and Mailchimp cap).

/** A pending address gets at most one confirmation email per this long, however often it signs up. */
export const RESEND_AFTER_MS = 10 * 60_000
/** ...and at most this many in any 24 hours. */
export const SENDS_PER_DAY = 3
export const DAY_MS = 24 * 60 * 60_000

/**
 * The address's recent sends after one more at `now` (those within the last 24 hours, oldest first), or undefined when
 * none may leave: one left less than 10 minutes ago, or three in the last 24 hours.
 */
export const afterResend = (recent: ReadonlyArray<Date>, now: Date): ReadonlyArray<Date> | undefined => {
  const lastDay = recent.filter((t) => now.getTime() - t.getTime() < DAY_MS)
  if (lastDay.some((t) => now.getTime() - t.getTime() < RESEND_AFTER_MS)) return undefined
  if (lastDay.length >= SENDS_PER_DAY) return undefined
  return [...lastDay, now]
}
