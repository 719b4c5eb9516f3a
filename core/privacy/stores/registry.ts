import type { PrivacyStore } from "../store.ts"
import { auditStore } from "./audit.ts"
import { b2bAccountsStore, b2bPeopleStore } from "./b2b.ts"
import { callsStore } from "./calls.ts"
import { cdpBatchItemsStore, cdpStore } from "./cdp.ts"
import { contactsStore } from "./contacts.ts"
import { idempotencyKeysStore, privacyExportsStore, webhookCopiesStore } from "./copies.ts"
import { deadLettersStore, inboxStore, outboxStore } from "./envelopes.ts"
import { bookingEventsStore, eventsStore } from "./events.ts"
import { broadcastRecipientsStore, journeysStore } from "./journeys.ts"
import { loyaltyStore } from "./loyalty.ts"
import { messagesStore } from "./messages.ts"
import { newsletterStore } from "./newsletter.ts"
import { reservationFactsStore, reservationGuestsStore } from "./reservations.ts"
import { rateCountersStore, ssoStore } from "./sso.ts"
import { websiteDeliveryLogStore, websiteEventsStore } from "./website.ts"

/**
 * Every store of personal data, in the order an erasure runs them. The order is part of the contract:
 * - foreign keys: every store whose rows point at a contact comes before `contacts` (last), a reservation's guest
 *   rows after the stores that find the subject's reservations through them (booking events, reservation facts);
 * - derived keys: the stores that find the subject by its loyalty member id (webhook sequences, rate counters, SSO)
 *   come before `loyalty`, which gives the member a new id; the website delivery log before the website events it
 *   names; the CDP visitors last within their store (they are how the rest is found).
 * A store must be finished (a call returning less than its limit) before the next starts.
 */
export const PrivacyStores: ReadonlyArray<PrivacyStore> = [
  privacyExportsStore,
  webhookCopiesStore,
  outboxStore,
  inboxStore,
  deadLettersStore,
  idempotencyKeysStore,
  rateCountersStore,
  ssoStore,
  loyaltyStore,
  messagesStore,
  journeysStore,
  broadcastRecipientsStore,
  websiteDeliveryLogStore,
  websiteEventsStore,
  cdpStore,
  cdpBatchItemsStore,
  callsStore,
  newsletterStore,
  b2bPeopleStore,
  b2bAccountsStore,
  eventsStore,
  bookingEventsStore,
  reservationFactsStore,
  reservationGuestsStore,
  auditStore,
  contactsStore
]

/**
 * Every other table, and why no row of it is personal data of a guest. A new table must be added to a store or here
 * (test/core/privacy/stores.test.ts reads the schema and names one that is neither).
 */
export const NoPersonalData: Readonly<Record<string, string>> = {
  tenants: "the hotel group's account",
  api_keys: "keys of the account (hashes, names, scopes)",
  hotels: "the account's hotels",
  tenant_settings: "the account's settings",
  channel_mappings: "the account's channel codes",
  custom_field_definitions: "definitions of custom fields (their values are on contacts)",
  channel_email: "the hotel's sender identity",
  channel_whatsapp: "the hotel's WhatsApp number and encrypted credentials",
  whatsapp_templates: "the hotel's approved templates",
  cti_integrations: "telephony integrations (token hashes)",
  journey_definitions: "journeys as the hotel wrote them",
  journey_versions: "journey versions as the hotel wrote them (templates, not a guest's values)",
  journey_run_counts: "how many runs of a journey are in each state (counts per journey, no contact)",
  journey_date_fires: "which journey fired for which reservation (ids and times only)",
  reservation_date_events: "check-in and check-out date events of reservations (ids and times only)",
  segments: "audience definitions as the hotel wrote them",
  broadcasts: "broadcasts as the hotel wrote them (content templates, audience definitions); recipients are broadcast_recipients",
  b2b_codes: "agency, promo and rate codes of B2B accounts",
  b2b_attributions: "which account a reservation is attributed to (a suggested email domain is a company's, not a person's)",
  loyalty_programs: "the programme's rules",
  loyalty_tiers: "the programme's tiers",
  loyalty_rewards: "the programme's rewards",
  loyalty_auctions: "experience auctions (bids are in the loyalty store)",
  website_sources: "website sources (settings, encrypted secrets)",
  website_source_keys: "website source credentials (hashes)",
  website_event_catalogue: "event names of a website source",
  cdp_settings: "visitor-tracking settings",
  cdp_batches: "bulk jobs' bookkeeping (their items are cdp_batch_items)",
  newsletter_settings: "the newsletter widget's settings",
  oidc_clients: "relying parties (hotel websites and apps)",
  oidc_signing_keys: "the provider's signing keys",
  webhook_subscriptions: "partner endpoints",
  webhook_replays: "replays asked for by a partner (time ranges, counts)",
  privacy_requests: "the audit record: keyed hashes, contact ids and counts, never the plain identifier (the sealed subject is cleared when the request ends)",
  privacy_suppressions: "keyed hashes of suppressed identifiers: kept on purpose, so nothing re-creates the subject",
  staff_accounts: "the account's staff (their work addresses and roles): a staff member's data, not a guest's; removed by DELETE /api/v1/staff/{id}, the row kept so the audit log still names its actor",
  staff_sign_in_codes: "staff sign-in codes (hashes; 10 minutes): a staff member's, not a guest's",
  staff_sessions: "staff sessions (token digests; 12 h idle, 7 days at most): a staff member's, not a guest's",
  partition_leases: "worker machinery",
  worker_heartbeats: "worker machinery",
  inbox_floors: "worker machinery",
  schema_migrations: "migration bookkeeping"
}

/** The retention table of the README: one line per store. */
export const retentionTable = (): ReadonlyArray<{ store: string; holds: string; erase: string; retention: string; tables: ReadonlyArray<string> }> =>
  PrivacyStores.map((s) => ({ store: s.store, holds: s.holds, erase: s.action, retention: s.retention, tables: s.tables }))
