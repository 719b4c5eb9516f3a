import { Clock, Context, Effect, Layer } from "effect"
import { randomUUID } from "node:crypto"
import { gunzipSync } from "node:zlib"
import { AppConfig } from "../../core/config/AppConfig.ts"
import { Database } from "../../core/db/Database.ts"
import type { DatabaseFailure } from "../../core/db/DatabaseFailure.ts"
import { MessagingConfig } from "../../core/message/MessagingConfig.ts"
import { identifierOf } from "../../core/privacy/identifier.ts"
import { PrivacyKey } from "../../core/privacy/PrivacyKey.ts"
import { type NamedSubject, resolveSubject } from "../../core/privacy/resolve.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import { isUuid } from "../../schemas/common.ts"
import { Conflict, NotFound, Unprocessable, ValidationFailed } from "../../schemas/errors.ts"
import {
  type CreatePrivacyRequest, type PrivacyExportDocument, type PrivacyRequestStatus, PrivacyRequestStatuses, type PrivacyRequestView
} from "../../schemas/privacyApi.ts"
import { inTenantOf, Refused } from "../http/inTenant.ts"
import type { PageRequest } from "../http/paging.ts"
import { downloadLink, linkProblem } from "./downloadLink.ts"
import { Suppressions } from "./Suppressions.ts"
import { insertRequest, listRequests, readRequest, type RequestRecord, requestByReference, suppress, unsuppress } from "./requestStore.ts"

const iso = (d: Date | null) => (d === null ? null : d.toISOString())

const invalidSubject = (field: string, message: string) =>
  Unprocessable.of("VALIDATION_ERROR", `Invalid privacy request: ${field} ${message}`, { [field]: [message] })

/** The subject as named, in stored spelling, or the refusal naming the field. */
const namedSubject = (subject: CreatePrivacyRequest["subject"]): NamedSubject | Unprocessable => {
  const given = (["contact_id", "email", "phone"] as const).filter((k) => subject[k] !== undefined)
  if (given.length !== 1) return invalidSubject("subject", "must name the person by exactly one of contact_id, email, phone")
  const kind = given[0]!
  const raw = subject[kind]!
  if (kind === "contact_id") return { kind, value: raw.toLowerCase() }
  const identifier = identifierOf(kind, raw)
  return identifier ?? invalidSubject(`subject.${kind}`, kind === "email" ? "is not an email address a contact can have" : "is not a phone number a contact can have (E.164 or with its country code)")
}

export interface Created {
  readonly request_id: string
  readonly status: PrivacyRequestStatus
}

type Page = { readonly requests: ReadonlyArray<PrivacyRequestView>; readonly next_cursor: string | null }

/**
 * Privacy requests of one account and mode. Suppression and its lifting are carried out in the request's own
 * transaction (a suppression holds from the 202: the ingress caches see it within GEP_SUPPRESSION_CACHE_MS); an
 * erasure suppresses there too and leaves the deletion to the runner on the workers; an export is the runner's.
 */
export class PrivacyRequests extends Context.Service<PrivacyRequests, {
  readonly create: (scope: TenantScope, by: string | null, r: CreatePrivacyRequest) => Effect.Effect<Created, Unprocessable | Conflict | DatabaseFailure>
  readonly get: (scope: TenantScope, id: string) => Effect.Effect<PrivacyRequestView, NotFound | DatabaseFailure>
  readonly list: (scope: TenantScope, status: string | undefined, page: PageRequest) => Effect.Effect<Page, ValidationFailed | DatabaseFailure>
  /** The export's document when the link is good; any fault is the same NotFound. */
  readonly download: (requestId: string, expires: string, signature: string) => Effect.Effect<PrivacyExportDocument, NotFound | DatabaseFailure>
}>()("app/privacy/PrivacyRequests") {
  static readonly layer = Layer.effect(PrivacyRequests, Effect.gen(function*() {
    const db = yield* Database
    const inTenant = inTenantOf(db)
    const key = yield* PrivacyKey
    const { namespace } = yield* AppConfig
    const { publicBaseUrl } = yield* MessagingConfig
    const suppressions = yield* Suppressions

    const viewOf = (r: RequestRecord, now: number): PrivacyRequestView => {
      const link = r.export_expires_at === null ? null : downloadLink(key, publicBaseUrl, r.id, now, r.export_expires_at.getTime())
      return {
        request_id: r.id, type: r.type, subject_kind: r.subject_kind, reference: r.reference, status: r.status,
        contact_ids: r.contact_ids, related_contact_ids: r.related_contact_ids, results: r.results, download_url: link?.url ?? null, download_expires_at: link?.expires_at ?? null,
        error: r.error, key_id: r.key_id, created_at: r.created_at.toISOString(), started_at: iso(r.started_at),
        completed_at: iso(r.completed_at)
      }
    }

    const create = Effect.fn("PrivacyRequests.create")(function*(scope: TenantScope, by: string | null, r: CreatePrivacyRequest) {
      const named = namedSubject(r.subject)
      if (named instanceof Unprocessable) return yield* Effect.fail(named)
      if (named.kind === "contact_id" && !isUuid(named.value)) return yield* Effect.fail(invalidSubject("subject.contact_id", "must be a UUID"))
      const id = randomUUID()
      const created = yield* inTenant<Created, Unprocessable | Conflict>(scope, async (tx) => {
        const namedHash = named.kind === "contact_id" ? undefined : key.hash(scope.tenant_id, named)
        if (r.reference !== undefined) {
          const earlier = await requestByReference(tx, scope, r.reference)
          if (earlier !== undefined) {
            const same = earlier.type === r.type && earlier.subject_kind === named.kind &&
              (namedHash === undefined ? earlier.contact_ids.includes(named.value) : earlier.subject_hashes.some((h) => h.equals(namedHash)))
            return same
              ? { request_id: earlier.id, status: earlier.status }
              : new Refused(Conflict.of("REFERENCE_IN_USE", "This reference names another privacy request (a different type or subject)", { reference: ["already used"] }))
          }
        }
        const subject = await resolveSubject(tx, scope, named)
        if (named.kind === "contact_id" && subject.contactIds.length === 0) {
          return new Refused(invalidSubject("subject.contact_id", "is no contact of this account and mode"))
        }
        const hashed = subject.identifiers.map((i) => ({ hash: key.hash(scope.tenant_id, i), kind: i.kind }))
        const immediate = r.type === "suppress" || r.type === "unsuppress"
        const count = r.type === "unsuppress"
          ? await unsuppress(tx, scope, hashed.map((h) => h.hash))
          : r.type === "export" ? 0 : await suppress(tx, scope, id, key.keyId, hashed)
        await insertRequest(tx, scope, {
          id, namespace, type: r.type, subject_kind: named.kind,
          // Only a request still to be carried out keeps the subject (sealed to this row): the runner re-resolves it.
          subject_sealed: immediate ? null : key.seal(id, named.kind === "contact_id" ? named.value : `${named.kind}:${named.value}`),
          subject_hashes: hashed.map((h) => h.hash), contact_ids: subject.contactIds, related_contact_ids: subject.relatedContactIds, reference: r.reference ?? null,
          status: immediate ? "completed" : "received",
          results: immediate ? [{ store: "privacy_suppressions", action: r.type === "suppress" ? "suppressed" : "unsuppressed", count }] : [],
          key_id: key.keyId, requested_by: by
        })
        return { request_id: id, status: immediate ? "completed" : "received" }
      })
      // This process's ingress sees the change at once; the others within their cache's time (GEP_SUPPRESSION_CACHE_MS).
      yield* suppressions.forget(scope)
      return created
    })

    const get = Effect.fn("PrivacyRequests.get")(function*(scope: TenantScope, id: string) {
      const notFound = NotFound.of(`No privacy request with id ${JSON.stringify(id)}`, { request_id: ["not found"] })
      if (!isUuid(id)) return yield* Effect.fail(notFound)
      const now = yield* Clock.currentTimeMillis
      return yield* inTenant<PrivacyRequestView, NotFound>(scope, async (tx) => {
        const found = await readRequest(tx, scope, id.toLowerCase())
        return found === undefined ? new Refused(notFound) : viewOf(found, now)
      })
    })

    const list = Effect.fn("PrivacyRequests.list")(function*(scope: TenantScope, status: string | undefined, page: PageRequest) {
      if (status !== undefined && !(PrivacyRequestStatuses as ReadonlyArray<string>).includes(status)) {
        const message = `must be one of ${PrivacyRequestStatuses.join(", ")}`
        return yield* Effect.fail(ValidationFailed.of(`Invalid request: status ${message}`, { status: [message] }))
      }
      const now = yield* Clock.currentTimeMillis
      return yield* inTenant(scope, async (tx) => {
        const { shown, next_cursor } = await listRequests(tx, scope, status as PrivacyRequestStatus | undefined, page)
        return { requests: shown.map((r) => viewOf(r, now)), next_cursor }
      })
    })

    const download = Effect.fn("PrivacyRequests.download")(function*(requestId: string, expires: string, signature: string) {
      const notFound = NotFound.of("This download link is invalid or has expired: read the request again for a fresh one", { request_id: ["not found"] })
      const now = yield* Clock.currentTimeMillis
      if (!isUuid(requestId) || linkProblem(key, requestId, expires, signature, now) !== undefined) return yield* Effect.fail(notFound)
      // The link is the credential: the row is found by its id across tenants, on the owner's role (not a tenant's).
      const [row] = yield* db.attempt((sql) => sql<Array<{ document: Buffer }>>`
        SELECT document FROM privacy_exports WHERE request_id = ${requestId.toLowerCase()} AND expires_at > now()`)
      if (row === undefined) return yield* Effect.fail(notFound)
      return JSON.parse(gunzipSync(row.document).toString("utf8")) as PrivacyExportDocument
    })

    return PrivacyRequests.of({ create, get, list, download })
  }))
}
