import { DateTime, Effect } from "effect"
import { readAttribution } from "../../core/b2b/attribution.ts"
import * as Actor from "../runtime/Actor.ts"
import { attributionCandidates } from "./attribution.ts"
import { attributionChangedCommand } from "./attributionEvents.ts"
import { accountExists, attributeManually, attributeReservations } from "./attributionRepository.ts"
import { AccountNotFound, type AttributeReservation, ReservationNotFound } from "./protocol.ts"
import * as Repo from "./repository.ts"

/**
 * A decision about one reservation's account, in the reservation's own actor (so it is ordered with its upserts):
 * `manual` stores the account (or none) and keeps it; `automatic` drops a manual decision and applies the rules now.
 */
export const attribute = Effect.fn("ReservationActor.attribute")(function*(cmd: AttributeReservation) {
  const { scope, subject } = yield* Effect.service(Actor.GroupTransaction)
  const stored = yield* Actor.query((tx) => Repo.findForUpdate(tx, scope, [cmd.external_id]))
  const reservation = stored.get(cmd.external_id)
  if (reservation === undefined) return yield* new ReservationNotFound()
  if (cmd.mode === "manual" && cmd.account_id !== null) {
    const accountId = cmd.account_id
    if (!(yield* Actor.query((tx) => accountExists(tx, scope, accountId)))) return yield* new AccountNotFound()
  }
  const change = cmd.mode === "manual"
    ? yield* Actor.query((tx) => attributeManually(tx, scope, reservation.id, cmd.account_id))
    : (yield* Actor.query((tx) =>
      attributeReservations(tx, scope, [{ reservation_id: reservation.id, candidates: attributionCandidates(reservation), reset: true }])))[0]
  if (change === undefined) return yield* Actor.query((tx) => readAttribution(tx, reservation.id))
  yield* Actor.emit([attributionChangedCommand(subject, { ...scope, occurred_at: (yield* DateTime.nowAsDate).toISOString() }, {
    id: reservation.id, external_id: cmd.external_id, row: reservation
  }, change)])
  return change.attribution
})
