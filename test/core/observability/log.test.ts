import { afterEach, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { log, Logging, logLevel } from "../../../core/observability/log.ts"

const LOG = fileURLToPath(new URL("../../../core/observability/log.ts", import.meta.url))

/** What this process writes to stderr while `f` runs, line by line (tests run at GEP_LOG_LEVEL=warn). */
const captured: Array<string> = []
const write = process.stderr.write
const capture = () => {
  captured.length = 0
  process.stderr.write = ((chunk: string | Uint8Array) => {
    captured.push(String(chunk))
    return true
  }) as typeof process.stderr.write
}
afterEach(() => {
  process.stderr.write = write
})
const lines = () => captured.join("").split("\n").filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>)

describe("one logging path: Effect's Logger, JSON lines on stderr", () => {
  it("runs at the level of GEP_LOG_LEVEL (warn in tests)", () => {
    expect(logLevel).toBe("warn")
  })

  it.effect("a line logged in a fiber carries ts, level, msg, its annotations and its span", () =>
    Effect.gen(function*() {
      const handle = Effect.fn("Orders.handle")(function*(orderId: string) {
        yield* Effect.logWarning("order deferred").pipe(Effect.annotateLogs({ order_id: orderId, attempt: 2 }))
        yield* Effect.logInfo("below the level: not written")
        yield* Effect.logError("order failed").pipe(Effect.withLogSpan("checkout"))
      })
      capture()
      yield* handle("o-1").pipe(Effect.annotateLogs({ tenant_id: "t-1" }), Effect.provide(Logging))
      process.stderr.write = write
      const [deferred, failed, ...rest] = lines()
      expect(rest).toEqual([])
      expect(deferred).toMatchObject({ level: "warn", msg: "order deferred", tenant_id: "t-1", order_id: "o-1", attempt: 2, span: "Orders.handle" })
      expect(Object.keys(deferred!).slice(0, 3)).toEqual(["ts", "level", "msg"])
      expect(new Date(deferred!.ts as string).toISOString()).toBe(deferred!.ts)
      expect(deferred!.trace_id).toEqual(expect.any(String))
      expect(failed).toMatchObject({ level: "error", msg: "order failed", tenant_id: "t-1", span: "Orders.handle", log_spans: { checkout: expect.any(Number) } })
      expect(failed!.order_id).toBeUndefined()
    }))

  it("log() from Promise code writes the same format, fields in the order given, and nothing below the level", () => {
    capture()
    log("info", "not written", { a: 1 })
    log("debug", "not written either")
    log("warn", "worker started", { worker_id: "w-1", error: new Error("boom"), n: 10n, gone: undefined })
    process.stderr.write = write
    expect(captured.join("")).toMatch(/^\{"ts":"[^"]+","level":"warn","msg":"worker started","worker_id":"w-1",/)
    expect(lines()).toEqual([{ ts: expect.any(String), level: "warn", msg: "worker started", worker_id: "w-1", error: "Error: boom", n: "10" }])
  })

  it("a failure's cause is on the line; a field cannot overwrite ts, level or msg", () => {
    capture()
    Effect.runSync(Effect.logError("command failed", new Error("db away")).pipe(Effect.annotateLogs({ msg: "spoof", level: "debug" }), Effect.provide(Logging)))
    process.stderr.write = write
    expect(lines()).toEqual([{ ts: expect.any(String), level: "error", msg: "command failed Error: db away", field_msg: "spoof", field_level: "debug" }])
  })

  it("takes its level from GEP_LOG_LEVEL and writes nothing to stdout", async () => {
    const script = `
      import { Effect } from "effect"
      import { log, Logging } from ${JSON.stringify(LOG)}
      log("debug", "applied", { duplicate: true })
      log("info", "started")
      Effect.runSync(Effect.logDebug("from a fiber").pipe(Effect.provide(Logging)))`
    const run = (level: string | undefined) =>
      promisify(execFile)(process.execPath, ["--input-type=module", "-e", script], {
        cwd: fileURLToPath(new URL("../../../", import.meta.url)),
        env: { ...process.env, GEP_LOG_LEVEL: level ?? "" }
      })
    const debug = await run("debug")
    expect(debug.stdout).toBe("")
    expect(debug.stderr).toContain('"msg":"applied","duplicate":true')
    expect(debug.stderr.trim().split("\n").map((l) => JSON.parse(l).msg)).toEqual(["applied", "started", "from a fiber"])
    const byDefault = await run(undefined)
    expect(byDefault.stderr.trim().split("\n").map((l) => JSON.parse(l).msg)).toEqual(["started"])
    expect((await run("error")).stderr).toBe("")
  })
})
