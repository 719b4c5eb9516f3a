import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, HttpApiSchema, OpenApi } from "effect/http-api"
import { oneOf } from "./common.ts"
import { Conflict, InternalError, NotFound, PreconditionFailed, Unavailable, Unprocessable, ValidationFailed } from "./errors.ts"
import { JourneyDefinition, JourneyStatuses, JourneyStep, JourneyTrigger, RunStates } from "./journey.ts"
import { BodyLimit, MiB } from "./limits.ts"
import { Audited, Authentication, OperatorAction, RequiredScope } from "./security.ts"
import { SafeString } from "./text.ts"
import { listOf, ok } from "./list.ts"

// The journeys API: definitions (saved in immutable versions, with a status) and the read side of their runs.

const opt = Schema.optionalKey

/**
 * Schema failures of this group: a body that is not a valid definition is a 422 VALIDATION_ERROR naming each field
 * (the issue's contract: "422 naming the field; nothing saved"), as the definition check's refusals are; a bad path
 * or query parameter stays a 400 VALIDATION_ERROR, as elsewhere.
 */
export class JourneyValidationErrors extends HttpApiMiddleware.Service<JourneyValidationErrors>()("app/http/JourneyValidationErrors", {
  error: [ValidationFailed, Unprocessable]
}) {}

export const CreateJourneyRequest = Schema.Struct({
  ...JourneyDefinition.fields,
  status: opt(oneOf(["draft", "active"] as const).annotate({ description: "`draft` (default) or `active` at once" }))
})
export type CreateJourneyRequest = typeof CreateJourneyRequest.Type

export const PatchJourneyRequest = Schema.Struct({
  name: opt(JourneyDefinition.fields.name),
  hotel_ids: opt(JourneyDefinition.fields.hotel_ids),
  trigger: opt(JourneyTrigger),
  steps: opt(JourneyDefinition.fields.steps)
}).annotate({ description: "The fields to change; the merged definition is checked whole and saved as the next version" })
export type PatchJourneyRequest = typeof PatchJourneyRequest.Type

const IssueView = Schema.Struct({ path: Schema.String, message: Schema.String })

export const JourneyView = Schema.Struct({
  journey_id: Schema.String,
  name: Schema.String,
  status: Schema.Literals(JourneyStatuses),
  version: Schema.Number,
  trigger_type: Schema.Literals(["event", "reservation_date"]),
  trigger_event: Schema.NullOr(Schema.String),
  hotel_ids: Schema.Array(Schema.String),
  trigger: JourneyTrigger,
  steps: Schema.Array(JourneyStep),
  created_at: Schema.String,
  updated_at: Schema.String,
  /** When the current version was saved. */
  version_created_at: Schema.String
})
export type JourneyView = typeof JourneyView.Type

const JourneySaved = Schema.Struct({
  journey_id: Schema.String,
  version: Schema.Number,
  status: Schema.Literals(JourneyStatuses),
  warnings: Schema.Array(IssueView)
})

const JourneyChanged = Schema.Struct({ ...JourneyView.fields, warnings: Schema.Array(IssueView) })

/** How many runs a journey has had, by where they are now (all its versions, this mode). */
export const JourneyCounts = Schema.Struct({
  entered: Schema.Number.annotate({ description: "every run ever started" }),
  waiting: Schema.Number.annotate({ description: "runs still live: waiting for their next step's time, or running one now" }),
  completed: Schema.Number,
  stopped: Schema.Number.annotate({ description: "runs that left early: an exit condition, a stop, the journey paused or archived" }),
  failed: Schema.Number.annotate({ description: "runs that ended on an error" })
})

const JourneySummary = JourneyView.mapFields(({ trigger: _t, steps: _s, ...rest }) => ({ ...rest, steps: Schema.Number, counts: JourneyCounts }))

export const RunStepView = Schema.Struct({
  step_id: Schema.String,
  type: Schema.String,
  outcome: Schema.String,
  reason: Schema.NullOr(Schema.String),
  message_id: Schema.NullOr(Schema.String),
  message_status: Schema.NullOr(Schema.String),
  at: Schema.String,
  merge_values: Schema.NullOr(Schema.Record(Schema.String, Schema.NullOr(Schema.String))).annotate({
    description: "a message step's merge tags (email: `{ \"contact_first_name\": \"Ana\" }`) or template parameter paths (WhatsApp: `{ \"contact.first_name\": \"Ana\" }`) with the value each rendered to when the step ran (null: none); null for the other steps and for steps run before this was kept"
  })
})

export const RunView = Schema.Struct({
  run_id: Schema.String,
  journey_id: Schema.String,
  version: Schema.Number,
  contact_id: Schema.String,
  scope: Schema.String,
  hotel_id: Schema.NullOr(Schema.String),
  reservation_id: Schema.NullOr(Schema.String),
  state: Schema.Literals(RunStates),
  exit_reason: Schema.NullOr(Schema.String),
  // Why a failed run failed (actors/journey/run.ts RunError); null for every other run.
  error: Schema.NullOr(Schema.Struct({ code: Schema.String, message: Schema.String, step_id: Schema.NullOr(Schema.String) })),
  started_at: Schema.String,
  ended_at: Schema.NullOr(Schema.String),
  wake_at: Schema.NullOr(Schema.String),
  trigger: Schema.Struct({
    event_name: Schema.NullOr(Schema.String),
    event_id: Schema.NullOr(Schema.String),
    origin: Schema.NullOr(Schema.String),
    payload: Schema.Record(Schema.String, Schema.Unknown).annotate({
      description: "what started the run, as the run froze it: the event's payload as received, or a reservation date trigger's reservation facts (reservation_id, hotel_id, status, check_in, check_out); the other guests of a booking (contact_ids) left out"
    })
  }),
  steps: Schema.Array(RunStepView)
})
export type RunView = typeof RunView.Type
// A list of runs names what started each, without the payloads (GET the run for those).
const RunSummary = RunView.mapFields(({ steps: _s, trigger, ...rest }) => ({
  ...rest,
  trigger: trigger.mapFields(({ payload: _p, ...t }) => t)
}))

const journey = { id: SafeString }
const run = { run_id: SafeString }
const page = { cursor: opt(SafeString), limit: opt(SafeString) }
const etag = { "if-match": opt(SafeString.annotate({ description: "the ETag of GET: refused with 412 when another version is current" })) }

const transition = (name: "activate" | "pause" | "archive", summary: string) =>
  HttpApiEndpoint.post(name, `/api/v1/journeys/:id/${name}`, {
    params: journey,
    success: ok(JourneyView),
    error: [NotFound, Conflict, Unprocessable]
  }).annotate(RequiredScope, "journeys:write").annotate(OpenApi.Summary, summary)

export const JourneysGroup = HttpApiGroup.make("journeys")
  .add(
    HttpApiEndpoint.post("create", "/api/v1/journeys", {
      payload: CreateJourneyRequest,
      success: ok(JourneySaved).pipe(HttpApiSchema.status(201)).annotate({ description: "Saved as version 1; `warnings` tell what it will skip" }),
      error: [Unprocessable]
    }).annotate(RequiredScope, "journeys:write")
      // A definition holds up to 50 steps, emails with their html among them.
      .annotate(BodyLimit, 2 * MiB)
      .annotate(OpenApi.Summary, "Create a journey (draft by default); an invalid definition is refused with 422 naming each field")
  )
  .add(
    HttpApiEndpoint.get("list", "/api/v1/journeys", {
      query: { ...page, status: opt(SafeString), trigger_event: opt(SafeString), hotel_id: opt(SafeString) },
      success: listOf("journeys", JourneySummary),
      error: ValidationFailed
    }).annotate(RequiredScope, "journeys:read")
      .annotate(OpenApi.Summary, "The journeys of this account and mode, newest first (limit 1-100, default 25); filters status, trigger_event, hotel_id")
  )
  .add(
    HttpApiEndpoint.get("get", "/api/v1/journeys/:id", { params: journey, success: ok(JourneyView), error: NotFound })
      .annotate(RequiredScope, "journeys:read")
      .annotate(OpenApi.Summary, "One journey: its status and current version's definition; the ETag names the version")
  )
  .add(
    HttpApiEndpoint.patch("update", "/api/v1/journeys/:id", {
      params: journey,
      headers: etag,
      payload: PatchJourneyRequest,
      success: ok(JourneyChanged),
      error: [NotFound, Conflict, PreconditionFailed, Unprocessable]
    }).annotate(RequiredScope, "journeys:write")
      .annotate(BodyLimit, 2 * MiB)
      .annotate(OpenApi.Summary, "Change a journey: the merged definition becomes the next version (runs keep theirs); If-Match guards")
  )
  .add(transition("activate", "Start taking entries (draft or paused → active); archived journeys stay archived (409)"))
  .add(transition("pause", "Stop taking entries (active → paused); waiting runs stop with journey_paused when they wake"))
  .add(transition("archive", "Retire a journey for good (any → archived)"))
  .add(
    HttpApiEndpoint.get("runs", "/api/v1/journeys/:id/runs", {
      params: journey,
      query: { ...page, state: opt(SafeString), contact_id: opt(SafeString) },
      success: listOf("runs", RunSummary),
      error: [ValidationFailed, NotFound]
    }).annotate(RequiredScope, "journeys:read")
      .annotate(OpenApi.Summary, "A journey's runs, newest first (limit 1-100, default 25); filters state, contact_id")
  )
  .add(
    HttpApiEndpoint.get("run", "/api/v1/journey-runs/:run_id", { params: run, success: ok(RunView), error: NotFound })
      .annotate(RequiredScope, "journeys:read")
      .annotate(OpenApi.Summary, "One run: its state, exit reason and every step with its outcome, reason and message status")
  )
  .add(
    HttpApiEndpoint.post("stopRun", "/api/v1/journey-runs/:run_id/stop", {
      params: run,
      success: ok(RunView),
      error: [NotFound, Unprocessable, Unavailable, InternalError]
    }).annotate(RequiredScope, "journeys:write")
      .annotate(OperatorAction, true).annotate(Audited, { action: "journey_run.stopped" })
      .annotate(OpenApi.Summary, "Stop a run at once (also during a wait): exit reason manual; an ended run is answered as it is")
  )
  .middleware(JourneyValidationErrors)
  .middleware(Authentication)
