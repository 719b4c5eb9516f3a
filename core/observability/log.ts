import { Cause, Context, Effect, Layer, Logger, References, Tracer } from "effect"
import type { LogLevel } from "effect"

/**
 * One logging path: Effect's Logger, one JSON object a line on stderr (stdout stays the CLI's one JSON object a
 * command). A line is
 *
 *   {"ts":"…","level":"info","msg":"…", …fields, "span":"Tenancy.createKey","trace_id":"…","span_id":"…"}
 *
 * where the fields are the log annotations (`Effect.annotateLogs`) and, for `log()`, the fields it is given, in the
 * order given; `span`, `trace_id` and `span_id` name the innermost tracing span (`Effect.fn("Name")`,
 * `Effect.withSpan`) when the line was logged inside one; `log_spans` holds `Effect.withLogSpan` labels with their
 * elapsed milliseconds; `cause` is the pretty cause of `Effect.logError(cause)`. The level comes from GEP_LOG_LEVEL
 * (debug|info|warn|error, default info).
 *
 * Effect code logs with `Effect.logInfo(msg).pipe(Effect.annotateLogs({ ... }))` so its spans and annotations reach
 * the line; Promise code outside any fiber calls `log(level, msg, fields)`, which runs the same logger. Message
 * handlers pass `envelope_id` and `tenant_id` so every line about a message can be joined. Never pass a secret, key
 * or token: fields are written as given.
 */
export type Level = "debug" | "info" | "warn" | "error"

const EFFECT_LEVEL: Record<Level, LogLevel.Severity> = { debug: "Debug", info: "Info", warn: "Warn", error: "Error" }
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 }

const configuredLevel = (value: string | undefined): Level =>
  value !== undefined && Object.hasOwn(ORDER, value) ? (value as Level) : "info"

/** The process's level (GEP_LOG_LEVEL, read once at start). */
export const logLevel: Level = configuredLevel(process.env.GEP_LOG_LEVEL)
const threshold = ORDER[logLevel]

export const errorText = (e: unknown): string => (e instanceof Error ? `${e.name}: ${e.message}` : String(e))

const RESERVED = new Set(["ts", "level", "msg", "span", "trace_id", "span_id", "log_spans", "cause"])

/** JSON-safe: an Error becomes its text (JSON.stringify would write `{}`), a bigint its digits. */
const jsonSafe = (_key: string, value: unknown): unknown =>
  typeof value === "bigint" ? value.toString() : value instanceof Error ? errorText(value) : value

const isRecord = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u) && Object.getPrototypeOf(u) === Object.prototype

const put = (line: Record<string, unknown>, key: string, value: unknown) => {
  line[RESERVED.has(key) ? `field_${key}` : key] = value
}

/** The line of one log event: the format described above. */
export const formatLine = (options: Logger.Options<unknown>): string => {
  const { cause, date, fiber, logLevel: level, message } = options
  const parts = Array.isArray(message) ? message : [message]
  const texts: Array<string> = []
  const extra: Array<Record<string, unknown>> = []
  for (const part of parts) {
    if (typeof part === "string") texts.push(part)
    else if (isRecord(part)) extra.push(part)
    else if (part instanceof Error) texts.push(errorText(part))
    else texts.push(typeof part === "object" && part !== null ? JSON.stringify(part, jsonSafe) ?? String(part) : String(part))
  }
  const hasCause = cause.reasons.length > 0
  const line: Record<string, unknown> = {
    ts: date.toISOString(),
    level: level.toLowerCase(),
    msg: texts.length > 0 ? texts.join(" ") : hasCause ? errorText(Cause.squash(cause)) : ""
  }
  for (const [key, value] of Object.entries(fiber.getRef(References.CurrentLogAnnotations))) put(line, key, value)
  for (const fields of extra) for (const [key, value] of Object.entries(fields)) put(line, key, value)
  const span = Context.getOrUndefined(fiber.context, Tracer.ParentSpan)
  if (span !== undefined) {
    if (span._tag === "Span") line.span = span.name
    line.trace_id = span.traceId
    line.span_id = span.spanId
  }
  const logSpans = fiber.getRef(References.CurrentLogSpans)
  if (logSpans.length > 0) {
    const now = date.getTime()
    line.log_spans = Object.fromEntries(logSpans.map(([label, started]) => [label, now - started]))
  }
  if (hasCause) line.cause = Cause.pretty(cause)
  return JSON.stringify(line, jsonSafe)
}

/** Writes each event as one JSON line on stderr. */
export const jsonLogger: Logger.Logger<unknown, void> = Logger.make((options) => {
  process.stderr.write(formatLine(options) + "\n")
})

const loggers: ReadonlySet<Logger.Logger<unknown, unknown>> = new Set([jsonLogger])
const minimumLogLevel = EFFECT_LEVEL[logLevel]

/**
 * The logger and level of every process (provided by the platform and the CLI): replaces Effect's default loggers
 * (console on stdout, and span events no exporter reads) with the JSON line on stderr.
 */
export const Logging: Layer.Layer<never> = Layer.mergeAll(
  Layer.succeed(Logger.CurrentLoggers, loggers),
  Layer.succeed(References.MinimumLogLevel, minimumLogLevel)
)

/** What `log()` runs its line with: the same logger and level, built once (a line costs a few microseconds). */
const runLine = Effect.runSyncWith(Context.make(Logger.CurrentLoggers, loggers).pipe(Context.add(References.MinimumLogLevel, minimumLogLevel)))

/** True when lines at `level` are written: lets a caller skip building fields that would be thrown away. */
export const logEnabled = (level: Level): boolean => ORDER[level] >= threshold

/**
 * A line from Promise code (timers, NATS callbacks, async loops outside any fiber), through the same Effect logger
 * and format. Nothing at all is done below the level: the worker's hot path calls `log("debug", ...)` per message.
 * Effect code uses `Effect.logInfo(...)` etc. instead, so its spans and annotations reach the line.
 */
export const log = (level: Level, msg: string, fields: Record<string, unknown> = {}): void => {
  if (ORDER[level] < threshold) return
  runLine(Effect.logWithLevel(EFFECT_LEVEL[level])(msg).pipe(Effect.annotateLogs(fields)))
}
