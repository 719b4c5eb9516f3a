import { Schema } from "effect"
import { DocumentedFreeForm } from "../text.ts"
import { jsonContent, param } from "./document.ts"

// Messaging's raw routes: Meta's WhatsApp webhook (src/message/whatsappWebhook.ts: the signature covers the raw bytes,
// answers are what Meta expects) and the unsubscribe links of marketing email (src/message/unsubscribe.ts: pages for
// a person or a mail client's one-click POST, RFC 8058).

/** What the WhatsApp webhook answers when it refuses: `{ error: { message } }` (Meta reads only the status). */
export const WhatsAppRefusal = Schema.Struct({ error: Schema.Struct({ message: Schema.String }) })
const refusal = (description: string) => ({ description, content: jsonContent(WhatsAppRefusal) })
const plain = (description: string) => ({ description, content: { "text/plain": { schema: { type: "string" } } } })
const html = (description: string) => ({ description, content: { "text/html": { schema: { type: "string" } } } })
const query = (name: string, description: string) => param(name, "query", description)

const TOKEN = param("token", "path", "the signed token of the email's link")

export const MessagingPaths = {
  "/api/webhooks/whatsapp": {
    get: {
      tags: ["messaging"],
      operationId: "verifyWhatsAppWebhook",
      summary: "Meta's verification handshake: answers hub.challenge when hub.verify_token is a configured channel's",
      parameters: [query("hub.mode", "subscribe"), query("hub.verify_token", "the channel's verify_token"), query("hub.challenge", "echoed back")],
      responses: {
        "200": plain("hub.challenge"),
        "400": refusal("hub.mode, hub.verify_token or hub.challenge missing"),
        "403": refusal("no channel has this verify token")
      }
    },
    post: {
      tags: ["messaging"],
      operationId: "receiveWhatsAppWebhook",
      summary: "Statuses and guests' messages from WhatsApp Cloud API, verified with the number's app secret before anything is stored",
      parameters: [param("X-Hub-Signature-256", "header", "sha256=<hex HMAC-SHA256 of the raw body with the app secret>", true)],
      // Meta's envelope (its documentation is the contract; unknown fields are ignored, as Meta adds them): described as
      // free-form, since a guest's text is Meta's to send, kept with NUL dropped rather than refused under our text policy.
      requestBody: { required: true, content: jsonContent(DocumentedFreeForm(1024 * 1024)) },
      responses: {
        "200": plain("EVENT_RECEIVED: every item applied (or refused for its data, which a retry could not change)"),
        "400": refusal("not JSON, not a WhatsApp Business Account envelope, or no phone number id"),
        "401": refusal("an unknown number, or the signature does not verify"),
        "413": refusal("over 1 MiB"),
        "503": refusal("not every item could be applied: Meta retries")
      }
    }
  },
  "/api/v1/unsubscribe/{token}": {
    get: {
      tags: ["messaging"],
      operationId: "getUnsubscribePage",
      summary: "The unsubscribe link of a marketing email: a page with a button, changing nothing (scanners fetch links)",
      parameters: [TOKEN],
      responses: { "200": html("the page with the button"), "404": html("a link that does not verify"), "503": html("try again in a moment") }
    },
    post: {
      tags: ["messaging"],
      operationId: "unsubscribe",
      summary: "Unsubscribe: the button above, or a mail client's one-click request (List-Unsubscribe-Post, RFC 8058)",
      parameters: [TOKEN],
      responses: {
        "200": html("unsubscribed: the contact's email marketing opt-out is recorded"),
        "404": html("a link that does not verify"),
        "503": html("the opt-out could not be recorded just now: try again")
      }
    }
  }
}
