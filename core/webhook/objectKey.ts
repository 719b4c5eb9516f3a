import type { WebhookEventType } from "../../schemas/webhook.ts"

/** The event a partner asks for with `POST /api/v1/webhooks/{id}/test`: sent to that subscription only. */
export const WebhookTestEvent = "webhook.test"

type Data = Record<string, any>
type KeyOf = (data: Data) => unknown

const contact: KeyOf = (d) => d.contact?.id && `contact:${d.contact.id}`
const message: KeyOf = (d) => d.message?.id && `message:${d.message.id}`
const conversation: KeyOf = (d) => d.conversation?.id && `conversation:${d.conversation.id}`
const journeyRun: KeyOf = (d) => d.run?.id && `journey_run:${d.run.id}`
const broadcast: KeyOf = (d) => d.broadcast?.id && `broadcast:${d.broadcast.id}`
const reservation: KeyOf = (d) => d.reservation?.id && `reservation:${d.reservation.id}`
const member: KeyOf = (d) => {
  const id = d.member_id ?? d.member?.member_id
  return id && `loyalty_member:${id}`
}

/**
 * The object each event type is about: `sequence` increases per tenant, mode and object key, so a receiver keeps the
 * highest sequence seen per object and drops an older update arriving late. One table for every event type (a test
 * checks none is missing): a new event type without a key does not type-check.
 */
export const ObjectKeys: Record<WebhookEventType | typeof WebhookTestEvent, KeyOf> = {
  "contact.created": contact, "contact.updated": contact, "contact.deleted": contact,
  "message.received": message, "message.sent": message, "message.delivered": message, "message.read": message, "message.failed": message,
  "conversation.created": conversation, "conversation.closed": conversation,
  "journey.started": journeyRun, "journey.completed": journeyRun, "journey.failed": journeyRun,
  "broadcast.sent": broadcast, "broadcast.completed": broadcast,
  "reservation.checked_in": reservation, "reservation.checked_out": reservation, "reservation.attribution_changed": reservation,
  "loyalty.member.enrolled": member, "loyalty.points.earned": member, "loyalty.points.reversed": member,
  "loyalty.tier.changed": member, "loyalty.redemption.fulfilment_required": member,
  "webhook.test": (d) => d.subscription_id && `webhook_subscription:${d.subscription_id}`
}

/** The object key of one event; an event whose data lacks its object's id is keyed by its type (still ordered). */
export const objectKeyOf = (eventType: string, data: unknown): string => {
  const keyOf = (ObjectKeys as Record<string, KeyOf | undefined>)[eventType]
  const key = keyOf && data !== null && typeof data === "object" ? keyOf(data as Data) : undefined
  return typeof key === "string" ? key : `type:${eventType}`
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const contactIdIn = (d: Data): unknown =>
  d.contact?.id ?? d.contact_id ?? d.message?.contact_id ?? d.conversation?.contact_id ?? d.run?.contact_id ?? d.member?.contact_id

/**
 * The contact an event is about, when its data names one (a contact's own events, and messages, conversations,
 * journey runs or members that carry their contact's id): the contact's timeline lists the webhooks emitted about it.
 */
export const contactOf = (data: unknown): string | null => {
  const id = data !== null && typeof data === "object" ? contactIdIn(data as Data) : undefined
  return typeof id === "string" && UUID.test(id) ? id.toLowerCase() : null
}
