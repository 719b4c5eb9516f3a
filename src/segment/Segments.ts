import { Context, DateTime, Effect, Layer } from "effect"
import { inTenantOf, Refused } from "../http/inTenant.ts"
import { randomUUID } from "node:crypto"
import { canonicalJson } from "../../core/canonicalJson.ts"
import { Database } from "../../core/db/Database.ts"
import type { DatabaseFailure } from "../../core/db/DatabaseFailure.ts"
import type { CustomFieldDef } from "../../core/segment/catalog.ts"
import { validateDefinition } from "../../core/segment/validate.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import { NotFound, PreconditionFailed, Unprocessable, ValidationFailed } from "../../schemas/errors.ts"
import type { SegmentDefinition } from "../../schemas/segment.ts"
import type { CreateSegmentRequest, PatchSegmentRequest, PreviewRequest, PreviewView, SegmentView } from "../../schemas/segmentApi.ts"
import { matches } from "../http/etag.ts"
import type { PageRequest } from "../http/paging.ts"
import { PreviewTimedOut, previewSegment, PREVIEW_TIMEOUT_MS } from "./preview.ts"
import { customFieldsOf, insertSegment, listSegments, readSegment, saveSegment } from "./store.ts"

/** Why a segment change, read or preview is refused; nothing of it was written. */
export type SegmentRefusal = NotFound | PreconditionFailed | Unprocessable | ValidationFailed

export const isSegmentRefusal = (e: unknown): e is SegmentRefusal =>
  e instanceof NotFound || e instanceof PreconditionFailed || e instanceof Unprocessable || e instanceof ValidationFailed

export const segmentNotFound = (id: string, field = "id") =>
  NotFound.of(`No segment with id ${JSON.stringify(id)}`, { [field]: ["not found"] })

/** The definition checked against the account's custom fields: every problem named by its path under `prefix`. */
const invalid = (definition: SegmentDefinition, customFields: ReadonlyArray<CustomFieldDef>, prefix: string) => {
  const problems = validateDefinition(definition, customFields)
  if (problems.length === 0) return undefined
  const details: Record<string, Array<string>> = {}
  for (const p of problems) (details[`${prefix}.${p.path}`] ??= []).push(p.message)
  const first = problems[0]!
  const message = problems.length === 1
    ? `Invalid segment definition: ${prefix}.${first.path}: ${first.message}`
    : `Invalid segment definition: ${problems.length} problems, the first ${prefix}.${first.path}: ${first.message}`
  return Unprocessable.of("VALIDATION_ERROR", message, details)
}

const timedOut = Unprocessable.of("SEGMENT_TIMEOUT",
  `The definition took longer than ${PREVIEW_TIMEOUT_MS / 1000} s to evaluate: narrow it (a hotel, a date window) or drop a contains`,
  { definition: ["took too long to evaluate"] })

type Result<A, E extends SegmentRefusal = SegmentRefusal> = Effect.Effect<A, E | DatabaseFailure>
type SegmentPage = Awaited<ReturnType<typeof listSegments>>

/**
 * Segments of one account and mode, for the segments API and the CLI alike (the same checks and refusals). A write is
 * one transaction confined to the tenant by row-level security; a definition is checked against the account's custom
 * fields when it is saved, and again when it is used (a field's definition may have changed since).
 */
export class Segments extends Context.Service<Segments, {
  readonly create: (scope: TenantScope, r: CreateSegmentRequest) => Result<SegmentView, Unprocessable>
  readonly list: (scope: TenantScope, page: PageRequest) => Result<SegmentPage, never>
  readonly get: (scope: TenantScope, id: string) => Result<SegmentView, NotFound>
  readonly update: (scope: TenantScope, id: string, patch: PatchSegmentRequest, ifMatch: string | undefined) => Result<SegmentView>
  readonly preview: (scope: TenantScope, r: PreviewRequest) => Result<PreviewView>
}>()("app/segment/Segments") {
  static readonly layer = Layer.effect(Segments, Effect.gen(function*() {
    const db = yield* Database

    const inTenant = inTenantOf(db)

    return Segments.of({
      create: Effect.fn("Segments.create")(function*(scope, r) {
        const id = randomUUID()
        const saved = yield* inTenant<SegmentView, Unprocessable>(scope, async (tx) => {
          const refusal = invalid(r.definition, await customFieldsOf(tx, scope), "definition")
          if (refusal !== undefined) return new Refused(refusal)
          return insertSegment(tx, scope, id, { name: r.name, description: r.description ?? null, definition: r.definition })
        })
        yield* Effect.logInfo("segment created").pipe(Effect.annotateLogs({ tenant_id: scope.tenant_id, segment_id: id }))
        return saved
      }),
      list: (scope, page) => inTenant<SegmentPage, never>(scope, (tx) => listSegments(tx, scope, page)),
      get: (scope, id) => inTenant<SegmentView, NotFound>(scope, async (tx) => (await readSegment(tx, scope, id)) ?? new Refused(segmentNotFound(id))),
      update: Effect.fn("Segments.update")(function*(scope, id, patch, ifMatch) {
        return yield* inTenant<SegmentView, SegmentRefusal>(scope, async (tx) => {
          const current = await readSegment(tx, scope, id, true)
          if (current === undefined) return new Refused(segmentNotFound(id))
          if (ifMatch !== undefined && !matches(ifMatch, current.version)) {
            return new Refused(PreconditionFailed.of(`Segment ${id} is at version ${current.version}, not the one If-Match names`, {
              "if-match": [`the current version's ETag is "v${current.version}"`]
            }))
          }
          const next = {
            name: patch.name ?? current.name,
            description: patch.description === undefined ? current.description : patch.description,
            definition: patch.definition ?? current.definition
          }
          if (patch.definition !== undefined) {
            const refusal = invalid(patch.definition, await customFieldsOf(tx, scope), "definition")
            if (refusal !== undefined) return new Refused(refusal)
          }
          // A change that changes nothing keeps the version.
          const same = next.name === current.name && next.description === current.description &&
            canonicalJson(next.definition) === canonicalJson(current.definition)
          return same ? current : saveSegment(tx, scope, id, next)
        })
      }),
      preview: Effect.fn("Segments.preview")(function*(scope, r) {
        if ((r.definition === undefined) === (r.segment_id === undefined)) {
          return yield* ValidationFailed.of("Invalid request: give exactly one of definition and segment_id", {
            [r.definition === undefined ? "definition" : "segment_id"]: ["give exactly one of definition and segment_id"]
          })
        }
        const { definition, customFields } = yield* inTenant<{ definition: SegmentDefinition; customFields: ReadonlyArray<CustomFieldDef> }, SegmentRefusal>(
          scope,
          async (tx) => {
            const saved = r.segment_id === undefined ? undefined : await readSegment(tx, scope, r.segment_id)
            if (r.segment_id !== undefined && saved === undefined) return new Refused(segmentNotFound(r.segment_id, "segment_id"))
            const definition = saved?.definition ?? r.definition!
            const customFields = await customFieldsOf(tx, scope)
            // A saved segment is checked again: a custom field it names may have been redefined since.
            const refusal = invalid(definition, customFields, "definition")
            return refusal === undefined ? { definition, customFields } : new Refused(refusal)
          }
        )
        const now = yield* DateTime.nowAsDate
        const answer = yield* db.attempt((sql) => previewSegment(sql, scope, definition, { now, customFields, category: r.category ?? "marketing" }))
        return answer instanceof PreviewTimedOut ? yield* timedOut : answer
      })
    })
  }))
}
