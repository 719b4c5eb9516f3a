// What each tag of /openapi.json groups, for the document's `tags` (a reader of /docs sees it above the operations).
// A HttpApi group's own `OpenApi.Description` annotation wins; a group without one takes its line here (schemas/api.ts
// fills it in). The raw routes' tags (schemas/rawRoutes/) are listed too, so every tag an operation names is declared.

export const TagDescriptions: Readonly<Record<string, string>> = {
  reservations: "Reservations from a PMS or booking engine: upserted by the partner's reservation_id, guests resolved to contacts",
  guests: "Guest contacts: created or updated by phone, looked up with their profile, consent, tags and custom fields",
  fields: "Custom field definitions: the keys, types and choices a contact's custom fields may take",
  events: "Core events sent by a partner: they start and stop journeys",
  webhooks: "Webhook subscriptions: where the platform posts its events, signed, with retries and a delivery log",
  telephony: "Call records from a telephony (CTI) provider, authenticated with the integration's webhook token",
  contactCalls: "The calls recorded for a contact",
  overview: "The overview statistics: per day and hotel, what came in (reservations, contacts) and what went out (messages, journeys, webhooks)",
  messages: "Email and WhatsApp messages to guests: sent through the consent gates, with their status chain and conversations",
  b2b: "Business accounts (companies, agencies), the people at them and their deals",
  channels: "The account's sending channels: the email sender and the WhatsApp number with its templates",
  loyalty: "The loyalty programme: members, points (earned, held, redeemed, expired), tiers and households",
  journeys: "Journeys: automated steps (wait, email, WhatsApp, branch) a contact goes through after an event, and their runs",
  segments: "Segments: saved audience definitions (contact, stay, loyalty, event and message conditions) and the preview of who they match",
  broadcasts: "Broadcasts: one-off sends to a segment, exactly once per recipient, consent-gated, paced, with their recipients and outcomes",
  privacy: "Privacy: a data subject's export, erasure and suppression across every store, with nothing re-created by a later feed",
  privacyExport: "Privacy exports: an export's document, downloaded by its signed link",
  loyaltyCredit: "Loyalty points earned from partner credit (co-branded card spend)",
  websiteSources: "Website sources: the sites that send website events, their keys, allowed origins, mappings and delivery log",
  loyaltyAuctions: "Points auctions: members bid loyalty points for an item; the sweeper settles them when they close",
  cdp: "Visitor tracking (CDP): anonymous visits, identify (stitching a visitor to a contact) and post-checkout reservations",
  oidcClients: "Relying parties of the loyalty single sign-on (hotel sites, apps, partner clubs)",
  loyaltyMe: "A signed-in loyalty member's own points and history (SSO access token)",
  loyaltyClub: "Partner club sites: exchange a member's one-time code for a transfer token and read the member",
  newsletterConfig: "The newsletter widget's setup: enabled, allowed origins, fields, bot check",
  newsletter: "The newsletter widget's public routes: its configuration and the double opt-in sign-up",
  newsletterConfirm: "The confirmation link of a newsletter sign-up email",
  "website events": "Website events in: a site's server or a browser beacon, or a partner's webhook mapped onto the contract; the page of their error codes",
  "browser sdk": "The browser script sending website events, its integrity value and the development demo page",
  console: "The operator console at /console: one page and its hashed assets, served with a strict Content-Security-Policy; it calls this public API only",
  messaging: "Routes providers and guests reach: WhatsApp Cloud API's webhook and the unsubscribe links of emails",
  operations: "For operators: liveness, readiness and Prometheus metrics",
  oidc: "Loyalty single sign-on: the OpenID Connect provider's endpoints and the passwordless sign-in pages"
}
