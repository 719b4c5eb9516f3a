import { Effect, Layer, Schedule } from "effect"
import { MessagingConfig } from "../../core/message/MessagingConfig.ts"
import { PrivacyKey } from "../../core/privacy/PrivacyKey.ts"
import { type CreatePrivacyRequest, PrivacyRequestTypes } from "../../schemas/privacyApi.ts"
import { Conflict, NotFound, Unprocessable } from "../../schemas/errors.ts"
import { PrivacyRequests } from "../privacy/PrivacyRequests.ts"
import { Suppressions } from "../privacy/Suppressions.ts"
import { need, refused, scopeOf } from "./channelFlags.ts"

export const PRIVACY_USAGE = `  privacy erase|export|suppress|unsuppress --tenant ID [--test] --email E | --phone P | --contact C [--reference R] [--wait]
                                               -> the request (as GET /api/v1/privacy/requests/{id}); --wait: until it has ended
  privacy status --tenant ID [--test] --id R   -> the request, with an export's download_url`

export const PRIVACY_OPTIONS = {
  email: { type: "string" },
  phone: { type: "string" },
  contact: { type: "string" },
  reference: { type: "string" },
  wait: { type: "boolean", default: false }
} as const

export interface PrivacyFlags {
  readonly tenant?: string | undefined
  readonly test?: boolean | undefined
  readonly id?: string | undefined
  readonly email?: string | undefined
  readonly phone?: string | undefined
  readonly contact?: string | undefined
  readonly reference?: string | undefined
  readonly wait?: boolean | undefined
}

/** The request's subject from the flags: exactly one of them, as the API takes it. */
const subjectOf = (flags: PrivacyFlags): CreatePrivacyRequest["subject"] => ({
  ...(flags.contact === undefined ? {} : { contact_id: flags.contact }),
  ...(flags.email === undefined ? {} : { email: flags.email }),
  ...(flags.phone === undefined ? {} : { phone: flags.phone })
})

/**
 * `gep privacy ...`: a privacy request made by an operator, through the same service as the API (the same checks,
 * suppression at once, the workers' runner for exports and erasures), recorded as requested by `cli`.
 */
export const privacyCommand = (args: ReadonlyArray<string>, flags: PrivacyFlags) =>
  Effect.gen(function*() {
    const requests = yield* PrivacyRequests
    const scope = yield* scopeOf(flags)
    const show = (id: string) => requests.get(scope, id).pipe(Effect.mapError((e) => (e instanceof NotFound ? refused(e.error.message) : e)))
    const action = args[0] ?? ""
    if (action === "status") return yield* show(yield* need("id", flags.id))
    const type = PrivacyRequestTypes.find((t) => t === action)
    if (type === undefined) return yield* Effect.fail(refused(`unknown command: privacy ${action} (${[...PrivacyRequestTypes, "status"].join(", ")})`))
    const subject = subjectOf(flags)
    if (Object.keys(subject).length !== 1) return yield* Effect.fail(refused("name the person by exactly one of --email, --phone, --contact"))
    const created = yield* requests.create(scope, "cli", { type, subject, ...(flags.reference === undefined ? {} : { reference: flags.reference }) }).pipe(
      Effect.mapError((e) => (e instanceof Unprocessable || e instanceof Conflict
        ? refused(e.error.message.replace("subject.contact_id", "--contact").replace("subject.email", "--email").replace("subject.phone", "--phone"))
        : e)))
    const ended = (s: string) => s === "completed" || s === "partial" || s === "failed"
    if (!flags.wait) return yield* show(created.request_id)
    // The workers carry exports and erasures out: polled until the request has ended.
    return yield* show(created.request_id).pipe(Effect.repeat({ schedule: Schedule.spaced("500 millis"), until: (r) => ended(r.status) }))
  }).pipe(Effect.provide(PrivacyRequests.layer.pipe(Layer.provide(Suppressions.layer), Layer.provide([PrivacyKey.layer, MessagingConfig.layer]), Layer.orDie)))
