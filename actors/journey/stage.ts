/**
 * The guest stage of a stay on a day, in the hotel's timezone: before the check-in date `pre_stay`, from check-in to
 * the day before check-out `during_stay`, from the check-out date `post_stay`. Derived from the booking dates (the
 * PMS status may lag), so a branch on the stage holds on the day itself.
 */
export type GuestStage = "pre_stay" | "during_stay" | "post_stay"

/** The calendar date `YYYY-MM-DD` at an instant in a timezone (en-CA formats dates that way). */
export const localDate = (at: number, timeZone: string): string =>
  new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(new Date(at))

export const stageOf = (stay: { readonly check_in: string; readonly check_out: string }, timeZone: string, now: number): GuestStage => {
  const today = localDate(now, timeZone)
  if (today < stay.check_in) return "pre_stay"
  return today < stay.check_out ? "during_stay" : "post_stay"
}
