import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, HttpApiSchema, OpenApi } from "effect/http-api"
import {
  Audience, DEFAULT_MARKETING_CAP_HOURS, BroadcastContent, BroadcastCounts, BroadcastFields, BroadcastSchedule, BroadcastStatuses, QuietHours,
  RecipientSkipReasons, RecipientStatuses
} from "./broadcast.ts"
import { Uuid } from "./common.ts"
import { Conflict, InternalError, NotFound, PreconditionFailed, Unavailable, Unprocessable, ValidationFailed } from "./errors.ts"
import { BodyLimit, MiB } from "./limits.ts"
import { listOf, ok, PageQuery } from "./list.ts"
import { Audited, Authentication, OperatorAction, RequiredScope } from "./security.ts"
import { SafeString } from "./text.ts"

// The broadcasts API (issue 25): one-off sends to a segment, their lifecycle actions and their recipients.

const opt = Schema.optionalKey

/** Schema failures of this group: a body that is not a valid broadcast is a 422 naming each field. */
export class BroadcastValidationErrors extends HttpApiMiddleware.Service<BroadcastValidationErrors>()("app/http/BroadcastValidationErrors", {
  error: [ValidationFailed, Unprocessable]
}) {}

export const CreateBroadcastRequest = Schema.Struct(BroadcastFields)
export type CreateBroadcastRequest = typeof CreateBroadcastRequest.Type

const { channel: _channel, ...changeable } = BroadcastFields
export const PatchBroadcastRequest = Schema.Struct(
  Object.fromEntries(Object.entries(changeable).map(([k, v]) => [k, opt(v as Schema.Top)])) as {
    readonly [K in keyof typeof changeable]: Schema.optionalKey<typeof changeable[K] extends Schema.optionalKey<infer S> ? S : typeof changeable[K]>
  }
).annotate({ description: "The fields to change while the broadcast is a draft (the channel is fixed); the result is checked whole" })
export type PatchBroadcastRequest = typeof PatchBroadcastRequest.Type

export const BroadcastView = Schema.Struct({
  broadcast_id: Schema.String,
  name: Schema.String,
  channel: Schema.Literals(["email", "whatsapp"]),
  category: Schema.Literals(["marketing", "utility"]),
  audience: Audience,
  content: BroadcastContent,
  hotel_id: Schema.NullOr(Schema.String),
  schedule: Schema.NullOr(BroadcastSchedule),
  rate_limit_per_minute: Schema.NullOr(Schema.Number),
  quiet_hours: Schema.NullOr(QuietHours),
  send_deadline: Schema.NullOr(Schema.String),
  status: Schema.Literals(BroadcastStatuses),
  /** Why it is cancelled or failed (`deadline_passed`, `cancelled`, `audience_failed`, ...); null otherwise. */
  status_reason: Schema.NullOr(Schema.String),
  /** While sending: `snapshotting` (taking the audience), `dispatching` (handing sends over), `settling` (messages going). */
  phase: Schema.NullOr(Schema.Literals(["snapshotting", "dispatching", "settling"])),
  counts: BroadcastCounts,
  version: Schema.Number,
  created_at: Schema.String,
  updated_at: Schema.String,
  started_at: Schema.NullOr(Schema.String),
  sent_at: Schema.NullOr(Schema.String),
  completed_at: Schema.NullOr(Schema.String),
  cancelled_at: Schema.NullOr(Schema.String)
})
export type BroadcastView = typeof BroadcastView.Type

export const RecipientView = Schema.Struct({
  contact_id: Schema.String,
  status: Schema.Literals(RecipientStatuses),
  skip_reason: Schema.NullOr(Schema.Literals(RecipientSkipReasons)),
  message_id: Schema.String,
  queued_at: Schema.NullOr(Schema.String),
  updated_at: Schema.String
})
export type RecipientView = typeof RecipientView.Type

export const TestSendRequest = Schema.Struct({
  to: Uuid.annotate({ description: "The contact_id to send one message to (through the gates; not a recipient, not counted)" })
})

/** A test send's outcome: `message_id` is null when nothing was recorded (a template parameter resolved to nothing). */
export const TestSendView = Schema.Struct({ message_id: Schema.NullOr(Schema.String), status: Schema.String, skip_reason: Schema.NullOr(Schema.String) })

export const BroadcastSettings = Schema.Struct({
  /** At most one marketing message per contact and channel in this many hours (0: no cap). */
  marketing_frequency_cap_hours: Schema.Int,
  /** False: the platform's default applies (the account never set one, or set null). */
  is_default: Schema.Boolean
})

export const BroadcastSettingsRequest = Schema.Struct({
  marketing_frequency_cap_hours: Schema.NullOr(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 8_760 }, {
    message: "must be an integer from 0 (no cap) to 8760 hours"
  }))).annotate({ description: `Hours between two marketing messages to a contact on a channel; 0 turns the cap off; null restores the default (${DEFAULT_MARKETING_CAP_HOURS})` })
})

const broadcast = { id: SafeString }
const etag = { "if-match": opt(SafeString.annotate({ description: "the ETag of GET: refused with 412 when another version is current" })) }
const READ = ["guests:read", "broadcasts:write"] as const

const action = (name: "schedule" | "send" | "pause" | "resume" | "cancel", summary: string) =>
  HttpApiEndpoint.post(name, `/api/v1/broadcasts/:id/${name}`, {
    params: broadcast,
    success: ok(BroadcastView),
    error: [NotFound, Conflict, Unprocessable, Unavailable, InternalError]
  }).annotate(RequiredScope, "broadcasts:write").annotate(OpenApi.Summary, summary)

export const BroadcastsGroup = HttpApiGroup.make("broadcasts")
  .add(
    HttpApiEndpoint.post("create", "/api/v1/broadcasts", {
      payload: CreateBroadcastRequest,
      success: ok(BroadcastView).pipe(HttpApiSchema.status(201)).annotate({ description: "A draft" }),
      error: [Unprocessable]
    }).annotate(RequiredScope, "broadcasts:write")
      .annotate(BodyLimit, 4 * MiB)
      .annotate(OpenApi.Summary, "Create a broadcast (a draft): audience, content per language, schedule, pacing, quiet hours, deadline")
  )
  .add(
    HttpApiEndpoint.get("list", "/api/v1/broadcasts", { query: PageQuery, success: listOf("broadcasts", BroadcastView), error: ValidationFailed })
      .annotate(RequiredScope, READ)
      .annotate(OpenApi.Summary, "The broadcasts of this account and mode, newest first (limit 1-100, default 25)")
  )
  .add(
    HttpApiEndpoint.get("get", "/api/v1/broadcasts/:id", { params: broadcast, success: ok(BroadcastView), error: NotFound })
      .annotate(RequiredScope, READ)
      .annotate(OpenApi.Summary, "One broadcast: its status, phase and counts by recipient status and skip reason")
  )
  .add(
    HttpApiEndpoint.patch("update", "/api/v1/broadcasts/:id", {
      params: broadcast,
      headers: etag,
      payload: PatchBroadcastRequest,
      success: ok(BroadcastView),
      error: [NotFound, Conflict, PreconditionFailed, Unprocessable]
    }).annotate(RequiredScope, "broadcasts:write")
      .annotate(BodyLimit, 4 * MiB)
      .annotate(OpenApi.Summary, "Change a draft; a broadcast past draft is 409; If-Match guards")
  )
  .add(action("schedule", "Schedule a draft for its schedule.send_at (draft → scheduled)"))
  .add(action("send", "Send now: take the audience and start sending (draft or scheduled → sending)"))
  .add(action("pause", "Stop handing sends over (sending → paused); sends already handed over still go")
    .annotate(OperatorAction, true).annotate(Audited, { action: "broadcast.paused" }))
  .add(action("resume", "Go on from where it paused (paused → sending), nobody sent twice; past its deadline it is cancelled")
    .annotate(OperatorAction, true).annotate(Audited, { action: "broadcast.resumed" }))
  .add(action("cancel", "Cancel (draft, scheduled, sending or paused → cancelled): nothing is sent after this answer; the rest skipped as cancelled")
    .annotate(OperatorAction, true).annotate(Audited, { action: "broadcast.cancelled" }))
  .add(
    HttpApiEndpoint.post("test", "/api/v1/broadcasts/:id/test", {
      params: broadcast,
      payload: TestSendRequest,
      success: ok(TestSendView).pipe(HttpApiSchema.status(202)),
      error: [NotFound, Unprocessable, Unavailable, InternalError]
    }).annotate(RequiredScope, "broadcasts:write")
      .annotate(OpenApi.Summary, "Send the broadcast's content once to one contact, through the gates; not a recipient, not counted")
  )
  .add(
    HttpApiEndpoint.get("recipients", "/api/v1/broadcasts/:id/recipients", {
      params: broadcast,
      query: { ...PageQuery, status: opt(SafeString) },
      success: listOf("recipients", RecipientView),
      error: [ValidationFailed, NotFound]
    }).annotate(RequiredScope, READ)
      .annotate(OpenApi.Summary, "A broadcast's recipients with status and skip reason, newest first (limit 1-100, default 25); filter status")
  )
  .add(
    HttpApiEndpoint.get("getSettings", "/api/v1/broadcast-settings", { success: ok(BroadcastSettings) })
      .annotate(RequiredScope, READ)
      .annotate(OpenApi.Summary, "The account's marketing frequency cap (both modes)")
  )
  .add(
    HttpApiEndpoint.patch("updateSettings", "/api/v1/broadcast-settings", { payload: BroadcastSettingsRequest, success: ok(BroadcastSettings) })
      .annotate(RequiredScope, "broadcasts:write")
      .annotate(OpenApi.Summary, "Set the marketing frequency cap the message sender applies to every marketing send of the account")
  )
  .middleware(BroadcastValidationErrors)
  .middleware(Authentication)
