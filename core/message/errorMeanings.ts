// What a provider's error on a message means, in one plain sentence for a hotel's front-office reader (the console's
// deliveries and a contact's timeline show it beside the raw code and message). Pure: the code and message as the
// message row keeps them (actors/message: a WhatsApp Cloud API error code; an SMTP reply code with the server's reply
// text, which usually holds an RFC 3463 enhanced status such as 5.1.1). Unknown codes have no meaning (null): a
// guessed sentence would mislead more than the raw reply.

/** WhatsApp Cloud API error codes (Meta's error code reference), by code. */
const WHATSAPP: Readonly<Record<string, string>> = {
  "0": "WhatsApp did not accept the account's access token; the channel settings need a new token.",
  "3": "The WhatsApp app lacks a permission it needs; the channel settings need checking.",
  "4": "The WhatsApp app made too many requests for a while; sending resumes on its own.",
  "10": "WhatsApp refused: a permission of the app was not granted or was removed.",
  "100": "WhatsApp refused the request as malformed (an unsupported or misspelt parameter).",
  "190": "The WhatsApp access token has expired; the channel settings need a new token.",
  "368": "The WhatsApp Business account is temporarily blocked for a policy violation.",
  "80007": "The WhatsApp Business account reached its rate limit; sending resumes later.",
  "130429": "WhatsApp's sending speed limit for this number was reached; the message is retried later.",
  "130472": "WhatsApp held the message back because the guest's number is part of a WhatsApp experiment.",
  "130497": "The WhatsApp Business account may not message guests in this guest's country.",
  "131000": "WhatsApp reported an unknown error while sending.",
  "131005": "WhatsApp denied access: the account's permissions for this number need checking.",
  "131008": "WhatsApp refused the message because a required part was missing.",
  "131009": "WhatsApp refused the message because one of its values was not valid.",
  "131016": "WhatsApp was temporarily unavailable; the message is retried later.",
  "131021": "The message was addressed to the hotel's own WhatsApp number.",
  "131026": "WhatsApp could not deliver: the number may not be on WhatsApp, the guest may not have accepted WhatsApp's terms, or uses an outdated app.",
  "131031": "The WhatsApp Business account is locked (a policy violation or a two-step verification problem).",
  "131042": "WhatsApp refused because of a payment problem on the Business account.",
  "131045": "WhatsApp refused because the sending number's certificate is not valid; it needs registering again.",
  "131047": "More than 24 hours have passed since the guest last wrote: only an approved template can be sent now.",
  "131048": "WhatsApp limited sending from this number because earlier messages were blocked or reported as spam.",
  "131049": "WhatsApp chose not to deliver this marketing message, to keep the guest from receiving too many.",
  "131050": "The guest has stopped marketing messages from this business in WhatsApp.",
  "131051": "WhatsApp does not support this type of message.",
  "131052": "WhatsApp could not download the media the guest sent.",
  "131053": "WhatsApp could not upload the media of this message.",
  "131056": "Too many messages were sent to this guest in a short time; WhatsApp asks to wait before sending again.",
  "131057": "The WhatsApp Business account is in maintenance; sending resumes on its own.",
  "132000": "The template was sent with a different number of values than it has placeholders.",
  "132001": "The template does not exist in this language, or is not approved yet.",
  "132005": "The template's text with its values filled in is too long.",
  "132007": "A value put into the template breaks WhatsApp's formatting or content rules.",
  "132012": "A value put into the template is not in the format the template expects.",
  "132015": "The template is paused by WhatsApp for low quality (guests blocked or reported it).",
  "132016": "The template was disabled by WhatsApp for low quality and cannot be sent.",
  "133000": "The sending number's previous deregistration did not complete.",
  "133004": "WhatsApp's server was temporarily unavailable; the message is retried later.",
  "133005": "The two-step verification PIN of the sending number is wrong.",
  "133006": "The sending number must be verified again before it can send.",
  "133010": "The sending number is not registered with WhatsApp's Cloud API.",
  "135000": "WhatsApp refused the message for an unspecified reason on the request's side."
}

/** RFC 3463 / RFC 5248 enhanced status codes, exact first (`5.7.26`), then by class and subject (`4.4.x`). */
const SMTP_ENHANCED: Readonly<Record<string, string>> = {
  "5.1.1": "The guest's email address does not exist at their mail provider.",
  "5.1.2": "The domain of the guest's email address does not exist or takes no mail.",
  "5.1.3": "The guest's email address is not written correctly.",
  "5.1.6": "The guest's mailbox has moved and no longer takes mail at this address.",
  "5.1.10": "The guest's email domain says it accepts no email at all (null MX).",
  "5.2.1": "The guest's mailbox is disabled and does not accept mail.",
  "5.2.2": "The guest's mailbox is full.",
  "5.2.3": "The email is larger than the guest's mail server accepts.",
  "5.3.4": "The email is larger than the guest's mail server accepts.",
  "5.4.1": "The guest's mail server refused the address (no such recipient there, or relaying denied).",
  "5.4.4": "No mail server could be found for the guest's email domain.",
  "5.7.1": "The guest's mail server refused the email by its policy (often a spam filter or a blocked sender).",
  "5.7.23": "The guest's mail server refused the email: the sending domain's SPF check failed.",
  "5.7.25": "The guest's mail server refused the email: the sending server has no valid reverse DNS name.",
  "5.7.26": "The guest's mail server refused the email as unauthenticated: the sending domain's SPF, DKIM or DMARC setup needs fixing.",
  "5.7.27": "The guest's mail server refused the email: the sending domain has a null MX and cannot send.",
  "4.2.1": "The guest's mailbox is temporarily not accepting mail; it is retried later.",
  "4.2.2": "The guest's mailbox is full for now; it is retried later.",
  "4.7.1": "The guest's mail server deferred the email for now (often greylisting or rate limiting); it is retried later.",
  "5.1": "The guest's email address was refused by their mail server.",
  "5.2": "The guest's mailbox cannot take this email.",
  "5.3": "The guest's mail server cannot take email at the moment, for good.",
  "5.4": "The email could not be routed to the guest's mail server.",
  "5.5": "The guest's mail server refused the sending conversation (a protocol error).",
  "5.7": "The guest's mail server refused the email for security or policy reasons.",
  "4.1": "The guest's mail server could not take the address for now; it is retried later.",
  "4.2": "The guest's mailbox is temporarily unavailable; it is retried later.",
  "4.3": "The guest's mail server is temporarily unable to take email; it is retried later.",
  "4.4": "The guest's mail server could not be reached for now (a network or routing problem); it is retried later.",
  "4.5": "The sending conversation with the guest's mail server failed for now; it is retried later.",
  "4.7": "The guest's mail server deferred the email for policy reasons; it is retried later."
}

/** SMTP reply codes (RFC 5321), for replies without an enhanced status. */
const SMTP_REPLY: Readonly<Record<string, string>> = {
  "421": "The guest's mail server was not available and closed the connection; it is retried later.",
  "450": "The guest's mailbox was not available for now (busy or greylisted); it is retried later.",
  "451": "The guest's mail server had a local problem; it is retried later.",
  "452": "The guest's mail server has too little storage for now; it is retried later.",
  "550": "The guest's mail server refused the email: the mailbox does not exist or the email was rejected.",
  "551": "The guest's address is not handled by that mail server.",
  "552": "The guest's mailbox is full, or the email is too large.",
  "553": "The guest's email address is not accepted as written.",
  "554": "The guest's mail server refused the email (often as spam or by policy)."
}

/** The platform's own codes for a send that never reached a provider. */
const PLATFORM: Readonly<Record<string, string>> = {
  SMTP_NOT_CONFIGURED: "The platform has no outgoing mail server configured, so no email left.",
  CHANNEL_NOT_CONFIGURED: "The channel was removed from the account's settings before the message left.",
  ECONNECTION: "The outgoing mail server could not be reached; the email is retried later.",
  ETIMEDOUT: "The outgoing mail server did not answer in time; the email is retried later."
}

/** A table's own entry (never an inherited property such as `constructor`). */
const own = (table: Readonly<Record<string, string>>, key: string | null | undefined): string | undefined =>
  key !== null && key !== undefined && Object.hasOwn(table, key) ? table[key] : undefined

const ENHANCED = /\b([245])\.(\d{1,3})\.(\d{1,3})\b/

/** The catalogues, for the SQL that says the same in a statement (errorMeaningSql.ts, held equal by a differential test). */
export const ERROR_CATALOGUES = { WHATSAPP, SMTP_ENHANCED, SMTP_REPLY, PLATFORM } as const

/** The enhanced status in an SMTP reply's text (`550 5.1.1 <x@y>: user unknown` → `5.1.1`), if any. */
export const enhancedStatusOf = (text: string | null): string | undefined => {
  const m = text === null ? null : ENHANCED.exec(text)
  return m === null ? undefined : `${m[1]}.${m[2]}.${m[3]}`
}

const smtpMeaning = (code: string | null, message: string | null): string | null => {
  const enhanced = enhancedStatusOf(message) ?? (code !== null && ENHANCED.test(code) ? enhancedStatusOf(code) : undefined)
  if (enhanced !== undefined) {
    const [klass, subject] = enhanced.split(".")
    const known = own(SMTP_ENHANCED, enhanced) ?? own(SMTP_ENHANCED, `${klass}.${subject}`)
    if (known !== undefined) return known
  }
  return own(SMTP_REPLY, code) ?? own(PLATFORM, code) ?? null
}

/**
 * One sentence saying what a message's error means, or null when the code is unknown. `channel` picks the catalogue:
 * WhatsApp codes are Meta's; email codes are SMTP replies, whose text is searched for an enhanced status first.
 */
export const errorMeaning = (channel: string, code: string | null, message: string | null): string | null => {
  if (channel === "whatsapp") return own(WHATSAPP, code) ?? own(PLATFORM, code) ?? null
  if (channel === "email") return smtpMeaning(code, message)
  return null
}
