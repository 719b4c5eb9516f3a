/** camelCase → snake_case (`callId` → `call_id`, `fromNumber` → `from_number`). */
export const snakeCase = (key: string): string => key.replace(/([a-z0-9])([A-Z])/g, "$1_$2").replace(/-/g, "_").toLowerCase()

const snakeKeys = (o: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(o).map(([k, v]) => [snakeCase(k), v]))

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)

/**
 * Providers send the same fields in snake_case or camelCase, at the top level or nested under `data`: one flat,
 * snake_case view, where `data` completes (and on a clash wins over) the top level. Nested values keep their keys.
 */
export const canonicalPayload = (body: Record<string, unknown>): Record<string, unknown> => {
  const top = snakeKeys(body)
  const data = isObject(top.data) ? snakeKeys(top.data) : {}
  const { data: _nested, ...rest } = top
  const merged: Record<string, unknown> = { ...rest, ...data }
  // Common aliases of the call-event fields.
  if (merged.from_number === undefined && typeof merged.from === "string" && merged.event_type !== undefined) merged.from_number = merged.from
  if (merged.to_number === undefined && typeof merged.to === "string" && merged.event_type !== undefined) merged.to_number = merged.to
  if (merged.duration === undefined && merged.duration_seconds !== undefined && merged.event_type !== undefined) merged.duration = merged.duration_seconds
  for (const nested of ["caller", "agent"]) if (isObject(merged[nested])) merged[nested] = snakeKeys(merged[nested] as Record<string, unknown>)
  if (Array.isArray(merged.transcript)) {
    merged.transcript = merged.transcript.map((t) => (isObject(t) ? snakeKeys(t) : t))
  }
  return merged
}
