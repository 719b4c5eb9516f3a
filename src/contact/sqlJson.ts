// SQL that writes an answer's JSON in PostgreSQL (ADR 0037): times as the API writes them, objects in the schema's key
// order.

/** A timestamp column as the API writes times: ISO 8601, UTC, to the millisecond. */
export const isoTime = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`

/** `json_build_object` of these keys in this order (`json`, not `jsonb`: the answer keeps the schema's key order). */
export const jsonObject = (fields: Record<string, string>) =>
  `json_build_object(${Object.entries(fields).map(([k, v]) => `'${k}', ${v}`).join(", ")})`
