import { Logger } from "effect"

/**
 * Structured JSON log lines on stderr. Message handlers pass `envelope_id` and `tenant_id` so every line about a
 * message can be joined. Never pass a secret or a key here: fields are written as given.
 */
type Level = "debug" | "info" | "warn" | "error"
const order: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 }
const threshold = order[(process.env.GEP_LOG_LEVEL as Level) ?? "info"] ?? 20

export const log = (level: Level, msg: string, fields: Record<string, unknown> = {}): void => {
  if (order[level] < threshold) return
  process.stderr.write(JSON.stringify({ ts: new Date().toISOString(), level, msg, ...fields }) + "\n")
}

export const errorText = (e: unknown): string => (e instanceof Error ? `${e.name}: ${e.message}` : String(e))

/** Effect's own log lines (runtime errors, defects) as JSON on stderr too, so stdout stays the CLI's one JSON object. */
export const JsonLogger = Logger.layer([Logger.map(Logger.formatJson, (line) => void process.stderr.write(line + "\n"))])
