let counter = 0
export const uniqueId = (prefix = "R") => `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}-${Math.random().toString(36).slice(2, 6)}`

/** A valid Spanish mobile number, distinct per n. */
export const phone = (n: number) => `+34 6${String(10_000_000 + (n % 89_999_999)).padStart(8, "0")}`
export const e164 = (n: number) => phone(n).replace(/\s/g, "")

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- request bodies are deliberately loose: tests also send wrong shapes
export const reservation = (hotel: { hotel_code?: string; hotel_id?: string }, overrides: Record<string, unknown> = {}): Record<string, any> => ({
  reservation_id: uniqueId(),
  ...hotel,
  check_in: "2026-12-01",
  check_out: "2026-12-04",
  status: "confirmed",
  source: "pms",
  guests: [{ first_name: "Ana", last_name: "García", phone: phone(Math.floor(Math.random() * 80_000_000)), is_holder: true }],
  ...overrides
})
