import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { ContactListResponse, ContactProfileResponse } from "./contact.ts"
import { NotFound, ValidationFailed } from "./errors.ts"
import { PageQuery } from "./list.ts"
import { Audited, Authentication, RequiredScope, ValidationErrors } from "./security.ts"
import { SafeString } from "./text.ts"
import { TimelineResponse } from "./timeline.ts"
import { Schema } from "effect"

// The contacts read side (issue 24): a profile by id, a search over the account's contacts, a contact's timeline.

const contact = { contact_id: SafeString.annotate({ description: "the contact's id (a UUID), as every write answers it" }) }
const opt = Schema.optionalKey

export const ContactsGroup = HttpApiGroup.make("contacts")
  .add(
    HttpApiEndpoint.get("get", "/api/v1/contacts/:contact_id", {
      params: contact,
      success: ContactProfileResponse,
      error: [ValidationFailed, NotFound]
    }).annotate(RequiredScope, "guests:read")
      .annotate(Audited, { action: "contact.viewed", contactParam: "contact_id", staffOnly: true })
      .annotate(OpenApi.Summary, "A contact's whole profile: identity, consent with its evidence, opt-outs, suppressions, hotels, stage, conflicts")
  )
  .add(
    HttpApiEndpoint.get("list", "/api/v1/contacts", {
      query: {
        email: opt(SafeString.annotate({ description: "exact address, case-insensitive" })),
        phone: opt(SafeString.annotate({ description: "any format the ingestion accepts, with its country code; matched as E.164" })),
        tag: opt(SafeString.annotate({ description: "contacts holding this tag" })),
        hotel_id: opt(SafeString.annotate({ description: "contacts linked to this hotel (a UUID)" })),
        updated_since: opt(SafeString.annotate({ description: "ISO 8601 date-time with offset: contacts updated at or after it" })),
        name: opt(SafeString.annotate({
          description: "words of the first or last name, each the start of a word of the name, case and accents ignored (\"ana gar\" finds Ana García); 2 to 100 characters"
        })),
        ...PageQuery
      },
      success: ContactListResponse,
      error: ValidationFailed
    }).annotate(RequiredScope, "guests:read")
      .annotate(OpenApi.Summary, "Search and list contacts, newest updated_at first; filters combine (AND)")
  )
  .add(
    HttpApiEndpoint.get("timeline", "/api/v1/contacts/:contact_id/timeline", {
      params: contact,
      query: PageQuery,
      success: TimelineResponse,
      error: [ValidationFailed, NotFound]
    }).annotate(RequiredScope, "guests:read")
      .annotate(Audited, { action: "contact.viewed", contactParam: "contact_id", staffOnly: true })
      .annotate(OpenApi.Summary, "Everything that happened to a contact, newest first, one item shape { at, kind, id, summary, data }")
  )
  .middleware(ValidationErrors)
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Contacts read: a contact's whole profile by id, a search by name, email, phone, tag, hotel or update time, and its timeline")
