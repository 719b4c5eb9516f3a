import type { Tx } from "../../core/db/Database.ts"
import type { CreateHotelRequest, Hotel, UpdateHotelRequest } from "../../schemas/hotel.ts"
import { exactTime } from "../http/cursor.ts"
import type { PageRequest } from "../http/paging.ts"
import { CURSOR_COLUMNS, newestFirst } from "./listing.ts"

// The hotels of one account, for the API (under row-level security) and the CLI alike: one implementation of every
// write and read. Every statement still filters on the tenant.

/** The field a write collides on: a code or a name (case aside) another hotel of the account already has. */
export interface HotelClash {
  readonly clash: "code" | "name"
}

const COLUMNS = `id, code, name, timezone, country, default_language, to_char(check_in_time, 'HH24:MI') AS check_in_time,
  to_char(check_out_time, 'HH24:MI') AS check_out_time, ${exactTime("created_at")} AS created_at,
  ${exactTime("updated_at")} AS updated_at, ${CURSOR_COLUMNS}`

const hotelOf = (r: Record<string, unknown>): Hotel => ({
  hotel_id: r.id as string,
  code: r.code as string,
  name: r.name as string,
  timezone: r.timezone as string,
  country: (r.country as string | null) ?? null,
  default_language: (r.default_language as string | null) ?? null,
  check_in_time: (r.check_in_time as string | null) ?? null,
  check_out_time: (r.check_out_time as string | null) ?? null,
  created_at: r.created_at as string,
  updated_at: r.updated_at as string
})

/** A unique violation of the hotels table, as the field it names; anything else is thrown on. */
const clashOf = (e: unknown): HotelClash => {
  const error = e as { code?: string; constraint_name?: string }
  if (error.code !== "23505") throw e
  return { clash: error.constraint_name === "hotels_tenant_name" ? "name" : "code" }
}

/** In a savepoint: a unique violation rolls back only the statement, and the caller is told which field collided. */
const unlessClash = (tx: Tx, statement: (sp: Tx) => Promise<ReadonlyArray<Record<string, unknown>>>) =>
  tx.savepoint((sp) => statement(sp as unknown as Tx)).then((rows) => rows as ReadonlyArray<Record<string, unknown>>, clashOf)

export const createHotel = async (tx: Tx, tenantId: string, h: CreateHotelRequest): Promise<Hotel | HotelClash> => {
  const rows = await unlessClash(tx, (sp) => sp.unsafe(
    `INSERT INTO hotels (tenant_id, code, name, timezone, country, default_language, check_in_time, check_out_time)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${COLUMNS}`,
    [tenantId, h.code, h.name, h.timezone, h.country ?? null, h.default_language ?? null, h.check_in_time ?? null, h.check_out_time ?? null]
  ))
  return "clash" in rows ? rows as HotelClash : hotelOf(rows[0]!)
}

export const readHotel = async (tx: Tx, tenantId: string, hotelId: string): Promise<Hotel | undefined> => {
  const [row] = await tx.unsafe(`SELECT ${COLUMNS} FROM hotels WHERE tenant_id = $1 AND id = $2::uuid`, [tenantId, hotelId])
  return row && hotelOf(row)
}

/** The account's hotels, newest first. */
export const listHotels = async (tx: Tx, tenantId: string, page: PageRequest) => {
  return newestFirst(tx, { table: "hotels", columns: COLUMNS, tenantId }, page, "hotels", hotelOf)
}

/** Sets the fields given (`null` clears an optional one); undefined when the account has no such hotel. */
export const updateHotel = async (tx: Tx, tenantId: string, hotelId: string, patch: UpdateHotelRequest): Promise<Hotel | HotelClash | undefined> => {
  const given = (field: keyof UpdateHotelRequest) => patch[field] !== undefined
  // Nothing to change: the hotel as it is (its updated_at unmoved).
  if (!(Object.keys(patch) as Array<keyof UpdateHotelRequest>).some(given)) return readHotel(tx, tenantId, hotelId)
  const rows = await unlessClash(tx, (sp) => sp.unsafe(
    `UPDATE hotels SET
       code = CASE WHEN $3 THEN $4 ELSE code END,
       name = CASE WHEN $5 THEN $6 ELSE name END,
       timezone = CASE WHEN $7 THEN $8 ELSE timezone END,
       country = CASE WHEN $9 THEN $10 ELSE country END,
       default_language = CASE WHEN $11 THEN $12 ELSE default_language END,
       check_in_time = CASE WHEN $13 THEN $14::time ELSE check_in_time END,
       check_out_time = CASE WHEN $15 THEN $16::time ELSE check_out_time END,
       updated_at = now()
     WHERE tenant_id = $1 AND id = $2::uuid RETURNING ${COLUMNS}`,
    [
      tenantId, hotelId,
      given("code"), patch.code ?? null, given("name"), patch.name ?? null, given("timezone"), patch.timezone ?? null,
      given("country"), patch.country ?? null, given("default_language"), patch.default_language ?? null,
      given("check_in_time"), patch.check_in_time ?? null, given("check_out_time"), patch.check_out_time ?? null
    ]
  ))
  if ("clash" in rows) return rows as HotelClash
  return rows[0] && hotelOf(rows[0])
}
