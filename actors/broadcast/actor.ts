import { DateTime, Effect } from "effect"
import { readEmailChannel, readWhatsAppSetup } from "../../core/channel/repository.ts"
import * as Actor from "../runtime/Actor.ts"
import { next, pastDeadline } from "./lifecycle.ts"
import { type Act, BroadcastProtocol, BroadcastRefused, type Step } from "./protocol.ts"
import * as Repo from "./repository.ts"
import { resolveAudience } from "./start.ts"
import { advance, completeStep, dispatchStep, settleStep, snapshotStep } from "./steps.ts"

const refuse = (status: 404 | 409 | 422, code: string, field: string, message: string) =>
  Effect.fail(new BroadcastRefused({ status, code, field, message }))

/** The earliest moment anyone is due: send_at, or with local-time sending its wall time in the first zone (UTC+14). */
const firstMoment = (b: Repo.BroadcastRow): Date =>
  b.recipient_local_time && b.send_at_local !== null ? new Date(Date.parse(`${b.send_at_local}Z`) - 14 * 3_600_000) : b.send_at!

/** Taking the audience: the definitions fixed, the snapshot started at once (or the broadcast failed or too late). */
const start = Effect.fn("BroadcastActor.start")(function*(b: Repo.BroadcastRow) {
  const now = yield* DateTime.nowAsDate
  if (pastDeadline(b.send_deadline, now)) {
    return yield* advance(b, { status: "cancelled", status_reason: "deadline_passed", phase: null, cancelled_at: now }, { at: null })
  }
  const audience = yield* resolveAudience(b)
  if ("failed" in audience) return yield* advance(b, { status: "failed", status_reason: audience.failed, phase: null }, { at: null })
  yield* advance(b, {
    status: "sending", phase: "snapshotting", definition: audience.definition, exclusions: audience.exclusions, snapshot_cursor: null, started_at: now
  }, { now: true })
})

/**
 * Why the account cannot send this broadcast now, if it cannot: its channel not configured, or (WhatsApp) its template
 * not registered or taking another number of parameters. Checked when it is scheduled and when it is sent, so a send
 * the message actor would refuse (leaving a recipient without a message) is refused here, naming the field.
 */
const sendable = Effect.fn("BroadcastActor.sendable")(function*(b: Repo.BroadcastRow) {
  const { scope } = yield* Effect.service(Actor.GroupTransaction)
  const setup = yield* Actor.query(async (tx) => (b.channel === "email" ? await readEmailChannel(tx, scope) : await readWhatsAppSetup(tx, scope)))
  if (setup === null) {
    return { code: "CHANNEL_NOT_CONFIGURED", field: "channel", message: `The ${b.channel} channel is not configured for this account (PUT /api/v1/channels/${b.channel})` }
  }
  if (!("templates" in setup) || !("template" in b.content)) return undefined
  const content = b.content
  const registered = setup.templates.find((t) => t.name === content.template && t.language === content.language)
  if (registered === undefined) {
    return { code: "TEMPLATE_UNKNOWN", field: "content.template", message: `No approved template ${JSON.stringify(content.template)} in language ${JSON.stringify(content.language)} is registered` }
  }
  if ((content.params ?? []).length !== registered.body_parameters) {
    return { code: "TEMPLATE_PARAMETER_COUNT", field: "content.params", message: `Template ${JSON.stringify(content.template)} takes ${registered.body_parameters} body parameters` }
  }
  return undefined
})

/** An operator's action, by the lifecycle's rules; a repeat answers as it is. */
const act = Effect.fn("BroadcastActor.act")(function*(cmd: Act) {
  const { scope } = yield* Effect.service(Actor.GroupTransaction)
  const b = yield* Actor.query((tx) => Repo.loadBroadcast(tx, scope, cmd.broadcast_id))
  if (b === undefined) return yield* refuse(404, "NOT_FOUND", "id", `No broadcast with id ${JSON.stringify(cmd.broadcast_id)}`)
  const to = next(cmd.action, b.status)
  if (typeof to === "object") return yield* refuse(to.status, to.code, to.field, to.message)
  if (to === "same") return { broadcast_id: b.id, status: b.status, changed: false }
  const now = yield* DateTime.nowAsDate
  const unsendable = cmd.action === "schedule" || cmd.action === "send" ? yield* sendable(b) : undefined
  if (unsendable !== undefined) return yield* refuse(422, unsendable.code, unsendable.field, unsendable.message)
  if ((cmd.action === "schedule" || cmd.action === "send") && pastDeadline(b.send_deadline, now)) {
    return yield* refuse(422, "DEADLINE_PASSED", "send_deadline", "The broadcast's send_deadline has passed: change it to send")
  }
  switch (cmd.action) {
    case "schedule":
      if (b.send_at === null) return yield* refuse(422, "SCHEDULE_REQUIRED", "schedule.send_at", "Set schedule.send_at to schedule; or send now")
      if (firstMoment(b).getTime() <= now.getTime() && !b.recipient_local_time) {
        return yield* refuse(422, "SEND_AT_PASSED", "schedule.send_at", "schedule.send_at has passed: change it, or send now")
      }
      yield* advance(b, { status: "scheduled" }, { at: firstMoment(b) })
      break
    case "send":
      yield* start(b)
      break
    case "pause":
      yield* advance(b, { status: "paused" }, { at: null })
      break
    case "resume":
      if (pastDeadline(b.send_deadline, now)) {
        yield* Actor.query((tx) => Repo.skipPending(tx, b.id, "deadline_passed"))
        yield* advance(b, { status: "sending", phase: "settling" }, { now: true })
      } else yield* advance(b, { status: "sending" }, { now: true })
      break
    case "cancel":
      yield* Actor.query((tx) => Repo.skipPending(tx, b.id, "cancelled"))
      yield* advance(b, { status: "cancelled", status_reason: "cancelled", phase: null, cancelled_at: now }, { at: null })
  }
  const after = yield* Actor.query((tx) => Repo.loadBroadcast(tx, scope, b.id))
  return { broadcast_id: b.id, status: after!.status, changed: true }
})

/** The next unit of work, unless the step is stale (the broadcast moved on since it was published). */
const step = Effect.fn("BroadcastActor.step")(function*(cmd: Step) {
  const { scope } = yield* Effect.service(Actor.GroupTransaction)
  const b = yield* Actor.query((tx) => Repo.loadBroadcast(tx, scope, cmd.broadcast_id))
  if (b === undefined || b.step_seq !== cmd.seq) return { applied: false }
  const now = yield* DateTime.nowAsDate
  if (b.status === "scheduled") yield* start(b)
  else if (b.status === "sent" && b.completed_at === null) yield* completeStep(b)
  else if (b.status !== "sending") return { applied: false }
  else if (b.phase !== "settling" && pastDeadline(b.send_deadline, now)) {
    // Past the deadline nobody more is handed over: the rest are skipped, the answers of those handed over awaited.
    yield* Actor.query((tx) => Repo.skipPending(tx, b.id, "deadline_passed"))
    yield* advance(b, { phase: "settling" }, { now: true })
  } else if (b.phase === "snapshotting") yield* snapshotStep(b)
  else if (b.phase === "dispatching") yield* dispatchStep(b)
  else yield* settleStep(b)
  return { applied: true }
})

/** The broadcast actor: one per broadcast, its actions and steps one at a time. */
export const BroadcastActor = Actor.make(BroadcastProtocol, { act, step }, { serial: true })
