import { Schema } from "effect"
import { BroadcastWebhooks } from "./broadcastEvents.ts"
import { CoreWebhooks } from "./coreEvents.ts"
import { LoyaltyWebhooks } from "./loyaltyEvents.ts"
import { MessagingWebhooks } from "./messageEvents.ts"
import { WebhookTestWebhooks } from "./webhook.ts"

/**
 * Every webhook body a subscription can receive, by event type: the one registry the document's `webhooks`, the check
 * when a command is written (actors/runtime/webhookSequences.ts) and the tests' receivers read. A new event type
 * needs its line here; test/schemas/webhookPayloads.test.ts names a type of `WebhookEventTypes` that has none.
 */
export const WebhookPayloads: ReadonlyMap<string, Schema.Top> = new Map([
  ...MessagingWebhooks, ...LoyaltyWebhooks, ...CoreWebhooks, ...WebhookTestWebhooks, ...BroadcastWebhooks
])

/**
 * Event types of the spec's list that nothing emits yet; their bodies are decided by the work that emits them, which
 * moves them to `WebhookPayloads` (as the privacy erasure did with `contact.deleted`).
 */
export const NotYetEmitted: ReadonlyArray<string> = []

const validators = new Map([...WebhookPayloads].map(([type, schema]) => [type, Schema.decodeUnknownExit(schema as Schema.Codec<unknown, unknown>)]))

/**
 * Why a delivered body is off its event type's schema (the failure's message, which names the path), or undefined when
 * it fits. An event type without a schema is off it too.
 */
export const webhookBodyProblem = (eventType: string, body: unknown): string | undefined => {
  const validate = validators.get(eventType)
  if (validate === undefined) return `no payload schema for ${eventType}`
  const exit = validate(body)
  return exit._tag === "Success" ? undefined : String(exit.cause)
}
