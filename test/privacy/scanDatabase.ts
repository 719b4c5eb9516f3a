import { gunzipSync } from "node:zlib"
import type postgres from "postgres"
import { decode } from "../../streams/msgpack.ts"

// The erasure's proof: every text, varchar, char, json, jsonb, array and bytea column of every table of the database,
// searched for a person's identifiers and names (case-insensitive). Bytea values are read whole: as UTF-8 text, and
// msgpack-decoded where they decode (nested encoded values too: a batch row's messages).

export interface Hit {
  readonly table: string
  readonly column: string
  readonly needle: string
  readonly rows: number
}

const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`
const literal = (value: string) => value.replace(/[\\%_]/g, (c) => `\\${c}`)

const strings = (value: unknown, out: Array<string>, depth = 0): void => {
  if (depth > 20) return
  if (typeof value === "string") out.push(value)
  else if (value instanceof Uint8Array) out.push(decodedText(value, depth + 1))
  else if (Array.isArray(value)) value.forEach((v) => strings(v, out, depth + 1))
  else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      out.push(k)
      strings(v, out, depth + 1)
    }
  }
}

/** The bytes as UTF-8, and every string of their msgpack decoding when they decode. */
export const decodedText = (bytes: Uint8Array, depth = 0): string => {
  // A gzip member (an export's document) is searched as what it holds.
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) return decodedText(gunzipSync(bytes), depth)
  const out = [Buffer.from(bytes).toString("utf8")]
  try {
    strings(decode(bytes), out, depth)
  } catch {
    // not msgpack: searched as text only
  }
  return out.join("\n")
}

/** Every searchable column of every base table of the public schema, by table. */
const columnsByTable = async (sql: postgres.Sql) => {
  const rows = await sql`
    SELECT c.table_name, c.column_name, c.data_type FROM information_schema.columns c
    JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
    WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE'
      AND c.data_type IN ('text', 'character varying', 'character', 'json', 'jsonb', 'bytea', 'ARRAY')
    ORDER BY c.table_name, c.ordinal_position`
  const tables = new Map<string, Array<{ column: string; bytea: boolean }>>()
  for (const r of rows) {
    const list = tables.get(r.table_name as string) ?? []
    list.push({ column: r.column_name as string, bytea: r.data_type === "bytea" })
    tables.set(r.table_name as string, list)
  }
  return tables
}

/** Where the needles occur: one hit per table, column and needle, with the number of rows. */
export const scanDatabase = async (sql: postgres.Sql, needles: ReadonlyArray<string>): Promise<Array<Hit>> => {
  const lowered = needles.map((n) => n.toLowerCase())
  const hits: Array<Hit> = []
  for (const [table, columns] of await columnsByTable(sql)) {
    const texts = columns.filter((c) => !c.bytea)
    if (texts.length > 0) {
      const counts = texts.flatMap((c, i) => lowered.map((_, j) =>
        `count(*) FILTER (WHERE ${quoted(c.column)}::text ILIKE $${j + 1}) AS c${i}_${j}`))
      const [row] = await sql.unsafe(`SELECT ${counts.join(", ")} FROM ${quoted(table)}`, lowered.map((n) => `%${literal(n)}%`))
      texts.forEach((c, i) => lowered.forEach((needle, j) => {
        const n = Number(row![`c${i}_${j}`])
        if (n > 0) hits.push({ table, column: c.column, needle, rows: n })
      }))
    }
    for (const c of columns.filter((c) => c.bytea)) {
      const values = await sql.unsafe(`SELECT ${quoted(c.column)} AS v FROM ${quoted(table)} WHERE ${quoted(c.column)} IS NOT NULL`)
      const found = new Map<string, number>()
      for (const { v } of values) {
        const text = decodedText(v as Uint8Array).toLowerCase()
        for (const needle of lowered) if (text.includes(needle)) found.set(needle, (found.get(needle) ?? 0) + 1)
      }
      for (const [needle, rows] of found) hits.push({ table, column: c.column, needle, rows })
    }
  }
  return hits
}

/** A person's needles: the email, the phone as E.164 and as digits, the first and the last name. */
export const needlesOfPerson = (p: { email: string; phone: string; first_name: string; last_name: string }) =>
  [p.email, p.phone, p.phone.replace(/^\+/, ""), p.first_name, p.last_name]
