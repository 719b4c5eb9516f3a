/**
 * Realistic, deterministic Reservations API payloads for the benchmark.
 *
 * - A pool of `contacts` people; person p always carries the same identity (phone and/or email), so the platform
 *   resolves them to exactly `contacts` contacts and never records a conflict.
 * - Reservation k has 1–4 guests (holder = person k mod contacts, so a long run covers the whole pool; companions
 *   drawn at random), 1–2 stays, 0–3 extras, amounts, channel, timestamps and a little metadata.
 * - An update re-sends an earlier reservation id with the same guests and a new status / amount / timestamp.
 *
 * Everything is derived from (seed, k): nothing per reservation is kept in memory, whatever the run's size.
 */

export interface PayloadOptions {
  /** Size of the person pool (distinct contacts the run converges to). */
  readonly contacts: number
  /** Hotel codes of the bench tenant. */
  readonly hotelCodes: ReadonlyArray<string>
  /** Prefix of every reservation id (unique per run). */
  readonly idPrefix: string
  /** Share of items that update an earlier reservation (0.1 = 10 %). */
  readonly updateShare: number
}

/** mulberry32: small, fast, good enough for load shapes. */
export const rng = (seed: number) => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const FIRST = ["Ana", "Carlos", "María", "José", "Lucía", "Javier", "Emma", "Oliver", "Sophie", "Lukas", "Giulia", "Marco",
  "Chloé", "Hugo", "Ingrid", "Pieter", "Aisha", "Noah", "Zoë", "Mateo", "Inés", "Álvaro", "Freya", "Jonas"]
const LAST = ["García", "Fernández", "López", "Martínez", "Smith", "Jones", "Müller", "Schmidt", "Rossi", "Bianchi",
  "Dubois", "Moreau", "de Vries", "Jansen", "Johansson", "O'Brien", "Silva", "Santos", "Navarro", "Ruiz", "Brown", "Weber"]
const DOMAINS = ["gmail.com", "hotmail.com", "yahoo.es", "outlook.com", "web.de", "orange.fr", "libero.it", "icloud.com"]
const NATIONALITY = ["ES", "ESP", "GB", "DE", "FR", "IT", "NL", "US", "es", "PT"]
const LANGUAGES = ["es", "en", "de", "fr", "it", "nl", "pt-BR", "en_GB"]
const CITIES = [["Madrid", "28013"], ["Barcelona", "08002"], ["London", "SW1A 1AA"], ["Berlin", "10115"], ["Paris", "75001"],
  ["Milano", "20121"], ["Amsterdam", "1012"], ["Lisboa", "1100-148"]] as const
const COUNTRIES = ["ESP", "ES", "GBR", "DEU", "FRA", "ITA", "NLD", "PRT"]
const ROOM_TYPES = ["DBL", "TWN", "SGL", "JSU", "SUP", "FAM"]
const BOARDS = ["RO", "BB", "HB", "FB", "AI"] as const
const RATES = ["BAR", "NRF", "PROMO15", "CORP", "OTA-FLEX"]
const EXTRAS = [["Breakfast", "BKF", 18], ["Parking", "PRK", 22], ["Spa access", "SPA", 35], ["Late check-out", "LCO", 40],
  ["Airport transfer", "TRF", 55], ["Baby cot", "COT", 0.5]] as const
const CHANNELS = ["Booking.com", "Expedia", "Direct web", "Phone", "Hotelbeds", "Walk-in"]
const SOURCES = ["pms", "pms", "pms", "channel_manager", "booking_engine"] as const
const SEGMENTS = ["leisure", "business", "group", "mice"]

/**
 * Phone of person p (unique per p), or undefined for the ~10 % without one. Numbers are scattered bijectively over
 * each country's mobile range (so no sequential or repeated-digit placeholders by construction of the multiplier).
 */
export const personPhone = (p: number): string | undefined => {
  if (p % 10 === 3) return undefined
  const scattered = (p * 7_654_321 + 13_579_135) % 100_000_000 // bijective on [0, 1e8): multiplier coprime with 10
  const d8 = String(scattered).padStart(8, "0")
  // "+34 600 000 000" and the like are placeholders the platform refuses: such a person goes by email instead.
  if (/^\d0{7}$/.test(d8)) return undefined
  switch (p % 4) {
    case 0:
      return `+34 6${d8.slice(0, 2)} ${d8.slice(2, 5)} ${d8.slice(5)}`
    case 1:
      return `0034 6${d8}` // international 00 prefix, no spaces (distinct from case 0: the scatter is bijective)
    case 2:
      return `+44 78${d8.slice(0, 2)} ${d8.slice(2)}`
    default:
      return `+49 151 ${d8}`
  }
}

export const personEmail = (p: number): string | undefined => {
  const hasPhone = personPhone(p) !== undefined
  if (hasPhone && p % 4 === 1) return undefined // ~25 % phone-only
  const first = FIRST[p % FIRST.length]!.normalize("NFD").replace(/[^A-Za-z]/g, "")
  const last = LAST[(p >> 3) % LAST.length]!.normalize("NFD").replace(/[^A-Za-z]/g, "")
  const local = `${first}.${last}.${p}`
  const domain = DOMAINS[p % DOMAINS.length]!
  return p % 7 === 0 ? `${local}@${domain.toUpperCase()}` : `${local.toLowerCase()}@${domain}` // some mixed case
}

const guestOf = (p: number, holder: boolean, r: () => number): Record<string, unknown> => {
  const [city, postal] = CITIES[p % CITIES.length]!
  const g: Record<string, unknown> = {
    first_name: FIRST[p % FIRST.length],
    last_name: LAST[(p >> 3) % LAST.length],
    is_holder: holder,
    pax_type: holder || r() < 0.8 ? "adult" : "child",
    nationality: NATIONALITY[p % NATIONALITY.length],
    language: LANGUAGES[p % LANGUAGES.length]
  }
  const phone = personPhone(p)
  const email = personEmail(p)
  if (phone !== undefined) g.phone = phone
  if (email !== undefined) g.email = email
  if (holder) {
    g.date_of_birth = `19${50 + (p % 50)}-0${1 + (p % 9)}-1${p % 10}`
    g.gender = p % 2 === 0 ? "female" : "male"
    g.document_type = "passport"
    g.document_number = `X${(p * 97 + 1_000_003).toString(36).toUpperCase()}`
    g.address = { street: `Calle Mayor ${1 + (p % 120)}`, city, postal_code: postal, country: COUNTRIES[p % COUNTRIES.length] }
    g.email_consent = p % 3 === 0
    g.whatsapp_marketing_consent = p % 5 !== 0
  }
  return g
}

const isoDate = (dayIndex: number) => new Date(Date.UTC(2026, 0, 1) + dayIndex * 86_400_000).toISOString().slice(0, 10)

/** The body of reservation k (new), or of an update of k (variant 1..3). */
export const reservationBody = (o: PayloadOptions, k: number, variant = 0): Record<string, unknown> => {
  const r = rng(k * 2_654_435_761 + 1)
  const contacts = o.contacts
  const guestCount = (() => {
    const x = r()
    return x < 0.45 ? 1 : x < 0.8 ? 2 : x < 0.93 ? 3 : 4
  })()
  const holder = k % contacts
  const people = [holder]
  while (people.length < guestCount) {
    const p = Math.floor(r() * contacts)
    if (!people.includes(p)) people.push(p)
    else if (contacts <= guestCount) break
  }
  const guests = people.map((p, i) => guestOf(p, i === 0, r))
  const checkInDay = Math.floor(r() * 700)
  const nights = 1 + Math.floor(r() * (r() < 0.8 ? 5 : 14))
  const checkIn = isoDate(checkInDay)
  const checkOut = isoDate(checkInDay + nights)
  const splitStay = nights >= 4 && r() < 0.25
  const room = ROOM_TYPES[Math.floor(r() * ROOM_TYPES.length)]!
  const adults = guests.filter((g) => g.pax_type === "adult").length
  const stayOf = (from: number, to: number, roomType: string) => ({
    start_date: isoDate(from),
    end_date: isoDate(to),
    room_type: roomType,
    room_number: String(100 + Math.floor(r() * 500)),
    board_type: BOARDS[Math.floor(r() * BOARDS.length)],
    rate_code: RATES[Math.floor(r() * RATES.length)],
    adults,
    children: guests.length - adults,
    babies: 0
  })
  const stays = splitStay
    ? [stayOf(checkInDay, checkInDay + 2, room), stayOf(checkInDay + 2, checkInDay + nights, ROOM_TYPES[(k + 1) % ROOM_TYPES.length]!)]
    : [stayOf(checkInDay, checkInDay + nights, room)]
  const extraCount = Math.floor(r() * 4)
  const extras = Array.from({ length: extraCount }, (_, i) => {
    const [name, code, price] = EXTRAS[(k + i * 3) % EXTRAS.length]!
    return { name, code, amount: Math.round(price * nights * 100) / 100, quantity: nights, date: checkIn }
  })
  const amount = Math.round((80 + r() * 220) * nights * 100) / 100 * (1 + variant * 0.1)
  const bookedDaysBefore = 1 + Math.floor(r() * 120)
  const created = new Date(Date.UTC(2026, 0, 1) + (checkInDay - bookedDaysBefore) * 86_400_000 + Math.floor(r() * 86_400_000))
  const updated = new Date(created.getTime() + variant * 3_600_000 * 7)
  const status = variant === 0 ? (r() < 0.95 ? "confirmed" : "pending") : (["modified", "checked_in", "cancelled"] as const)[(variant - 1) % 3]
  const body: Record<string, unknown> = {
    reservation_id: `${o.idPrefix}-${k}`,
    confirmation_number: `CNF${(k * 31 + 7).toString(36).toUpperCase()}`,
    booking_id: `BK-${k}`,
    hotel_code: o.hotelCodes[k % o.hotelCodes.length],
    check_in: checkIn,
    check_out: checkOut,
    booking_date: created.toISOString().slice(0, 10),
    status,
    channel: CHANNELS[k % CHANNELS.length],
    source: SOURCES[k % SOURCES.length],
    amount: Math.round(amount * 100) / 100,
    amount_net: Math.round(amount * 0.9 * 100) / 100,
    currency: k % 9 === 0 ? "gbp" : "EUR",
    market_segment: SEGMENTS[k % SEGMENTS.length],
    external_created_at: created.toISOString().replace(".000Z", "+00:00"),
    external_updated_at: updated.toISOString(),
    guests,
    stays,
    extras,
    metadata: { pms: "bench-pms", rev: variant, property_system_id: `PS-${k % 1000}` }
  }
  if (r() < 0.2) body.comments = "Late arrival, around 23:00. Quiet room if possible."
  if (k % 11 === 0) body.agency = "Viajes Bench S.L."
  return body
}

/**
 * The item stream: item i is a new reservation or (updateShare of the time, once enough exist) an update of an
 * earlier one that was sent at least `settle` new reservations ago (so it is committed and answered 200).
 */
export class ReservationStream {
  private readonly o: PayloadOptions
  private readonly r: () => number
  private readonly settle: number
  private nextNew = 0
  newCount = 0
  updateCount = 0

  constructor(o: PayloadOptions, options: { seed?: number; settle?: number } = {}) {
    this.o = o
    this.r = rng(options.seed ?? 42)
    this.settle = options.settle ?? 2_000
  }

  next(): Record<string, unknown> {
    if (this.nextNew > this.settle && this.r() < this.o.updateShare) {
      const k = Math.floor(this.r() * (this.nextNew - this.settle))
      this.updateCount++
      return reservationBody(this.o, k, 1 + Math.floor(this.r() * 3))
    }
    this.newCount++
    return reservationBody(this.o, this.nextNew++, 0)
  }
}
