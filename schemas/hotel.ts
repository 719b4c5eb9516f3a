import countries from "i18n-iso-countries"
import { Schema } from "effect"
import { LanguageCode, LocalTime, NonEmptyString } from "./common.ts"
import { SafeString } from "./text.ts"

// Hotels of an account: shared by its live and sandbox modes (account configuration, like the webhook settings), so
// either key reads and manages the same list and a sandbox reservation names the same hotels as a live one.

/** An IANA time zone name as the tz database spells it (`Europe/Madrid`, `UTC`; no offsets like `+01:00`). */
export const isTimeZone = (tz: string): boolean => {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/u.test(tz)) return false
  try {
    const resolved = new Intl.DateTimeFormat("en", { timeZone: tz }).resolvedOptions().timeZone
    // Intl matches names case-insensitively; the stored name must be the database's own spelling.
    return resolved.toLowerCase() !== tz.toLowerCase() || resolved === tz
  } catch {
    return false
  }
}

const TimeZone = SafeString.check(Schema.makeFilter((s: string) =>
  isTimeZone(s) || "must be an IANA time zone such as Europe/Madrid")).annotate({ description: "IANA time zone, e.g. Europe/Madrid" })

const CountryCode = SafeString.check(Schema.makeFilter((s: string) =>
  (/^[A-Z]{2}$/u.test(s) && countries.isValid(s)) || "must be an ISO 3166-1 alpha-2 code in capitals, e.g. ES"))

const HotelCode = NonEmptyString.check(Schema.makeFilter((s: string) =>
  ([...s].length <= 64 && s.trim() === s) || "must be at most 64 characters, without spaces around it"))
  .annotate({ description: "the code partners send as hotel_code (unique in the account)" })
const HotelName = NonEmptyString.check(Schema.makeFilter((s: string) => [...s].length <= 200 || "must be at most 200 characters"))
  .annotate({ description: "unique in the account, case aside; partners may send it as hotel_name" })

const opt = Schema.optionalKey

export const CreateHotelRequest = Schema.Struct({
  code: HotelCode,
  name: HotelName,
  timezone: TimeZone,
  country: opt(CountryCode),
  default_language: opt(LanguageCode),
  check_in_time: opt(LocalTime),
  check_out_time: opt(LocalTime)
})
export type CreateHotelRequest = typeof CreateHotelRequest.Type

/** A change: the fields given are set; `null` clears an optional one. */
export const UpdateHotelRequest = Schema.Struct({
  code: opt(HotelCode),
  name: opt(HotelName),
  timezone: opt(TimeZone),
  country: opt(Schema.NullOr(CountryCode)),
  default_language: opt(Schema.NullOr(LanguageCode)),
  check_in_time: opt(Schema.NullOr(LocalTime)),
  check_out_time: opt(Schema.NullOr(LocalTime))
})
export type UpdateHotelRequest = typeof UpdateHotelRequest.Type

export const Hotel = Schema.Struct({
  hotel_id: Schema.String,
  code: Schema.String,
  name: Schema.String,
  timezone: Schema.String,
  country: Schema.NullOr(Schema.String),
  default_language: Schema.NullOr(Schema.String),
  check_in_time: Schema.NullOr(Schema.String),
  check_out_time: Schema.NullOr(Schema.String),
  created_at: Schema.String,
  updated_at: Schema.String
})
export type Hotel = typeof Hotel.Type
