import { Effect, Layer, ManagedRuntime } from "effect"
import { createServer } from "node:net"
import postgres from "postgres"
import { inject } from "vitest"
import { Platform, type Role } from "../../src/app/Platform.ts"
import { AppConfig, type AppConfigShape } from "../../core/config/AppConfig.ts"
import { Database } from "../../core/db/Database.ts"
import { Tenancy } from "../../src/tenancy/Tenancy.ts"

export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const srv = createServer()
    srv.once("error", reject)
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number }
      srv.close(() => resolve(port))
    })
  })

/** Configuration of one test file's platform: the run's database, a namespace of its own. */
export const testConfig = (suffix: string, overrides: Partial<AppConfigShape> = {}): AppConfigShape => ({
  natsUrl: inject("natsUrl"),
  databaseUrl: inject("databaseUrl"),
  namespace: `${inject("namespace")}_${suffix}`,
  port: 0,
  partitions: 4,
  streamReplicas: 1,
  replyTimeoutMs: 10_000,
  defaultRateLimitPerMinute: 100_000,
  ackWaitMs: 2_000,
  telephonyRateLimitPerMinute: 100_000,
  leaseTtlMs: 3_000,
  // Several platforms, spawned workers and the test's own clients share one PostgreSQL (max_connections 100).
  dbPoolSize: 6,
  applyLanes: 1,
  inboxRetentionMs: 15 * 60_000,
  ...overrides
})

export interface RunningPlatform {
  readonly baseUrl: string
  readonly config: AppConfigShape
  readonly stop: () => Promise<void>
}

/** The real platform (HTTP, JetStream, workers, PostgreSQL) in this process, on a free port. */
export const startPlatform = async (
  suffix: string,
  options: { role?: Role; overrides?: Partial<AppConfigShape> } = {}
): Promise<RunningPlatform> => {
  const port = await freePort()
  const config = testConfig(suffix, { ...options.overrides, port })
  const runtime = ManagedRuntime.make(
    Platform(options.role ?? "all", port).pipe(Layer.provide(Layer.succeed(AppConfig, AppConfig.of(config))))
  )
  await runtime.runPromise(Effect.void)
  return { baseUrl: `http://127.0.0.1:${port}`, config, stop: () => runtime.dispose() }
}

/** Direct access to the run's database, for assertions. */
export const testSql = () => postgres(inject("databaseUrl"), { max: 2, onnotice: () => {} })

const tenancyRuntime = () =>
  ManagedRuntime.make(
    Tenancy.layer.pipe(
      Layer.provideMerge(Database.layer),
      Layer.provide(Layer.succeed(AppConfig, AppConfig.of(testConfig("admin"))))
    )
  )

export interface TestTenant {
  readonly tenant_id: string
  readonly live_key: string
  readonly test_key: string
  readonly hotel_id: string
  readonly hotel_code: string
  readonly hotel_name: string
}

/** A fresh tenant with one hotel and its two all-scope keys. */
export const createTenant = async (label = "t"): Promise<TestTenant> => {
  const rt = tenancyRuntime()
  try {
    return await rt.runPromise(Effect.gen(function*() {
      const tenancy = yield* Tenancy
      const unique = `${label}-${Math.random().toString(36).slice(2, 10)}`
      const t = yield* tenancy.createTenant(`Tenant ${unique}`)
      const hotel_code = `H-${unique}`
      const hotel_name = `Hotel ${unique}`
      const h = yield* tenancy.createHotel(t.tenant_id, { code: hotel_code, name: hotel_name, timezone: "Europe/Madrid" })
      return { ...t, hotel_id: h.hotel_id, hotel_code, hotel_name }
    }))
  } finally {
    await rt.dispose()
  }
}

export const createKey = async (tenantId: string, scopes: ReadonlyArray<string>, options: { sandbox?: boolean; rate?: number } = {}) => {
  const rt = tenancyRuntime()
  try {
    return await rt.runPromise(Tenancy.use((t) => t.createKey(tenantId, scopes, options.sandbox ?? false, options.rate)))
  } finally {
    await rt.dispose()
  }
}

export const revokeKey = async (keyId: string) => {
  const rt = tenancyRuntime()
  try {
    return await rt.runPromise(Tenancy.use((t) => t.revokeKey(keyId)))
  } finally {
    await rt.dispose()
  }
}

export interface HttpResult {
  readonly status: number
  readonly body: any
  readonly headers: Headers
}

export const request = async (baseUrl: string, method: string, path: string, options: { key?: string; body?: unknown; raw?: string; contentType?: string; headers?: Record<string, string> } = {}): Promise<HttpResult> => {
  const headers: Record<string, string> = { ...options.headers }
  if (options.key) headers.authorization = `Bearer ${options.key}`
  if (options.body !== undefined || options.raw !== undefined) headers["content-type"] = options.contentType ?? "application/json"
  return resultOf(await fetch(baseUrl + path, {
    method,
    headers,
    body: options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body))
  }))
}

/** An answer read whole: its body parsed when it is JSON, else its text (pages, redirects, scripts). */
export const resultOf = async (res: Response): Promise<HttpResult> => {
  const text = await res.text()
  let body: unknown = text
  try {
    body = JSON.parse(text)
  } catch {
    // non-JSON answers are returned as text, and tests assert they never happen on API routes
  }
  return { status: res.status, body, headers: res.headers }
}

export const post = (baseUrl: string, path: string, key: string | undefined, body: unknown) =>
  request(baseUrl, "POST", path, key === undefined ? { body } : { key, body })

export const createCtiIntegration = async (tenantId: string, provider: string) => {
  const rt = tenancyRuntime()
  try {
    return await rt.runPromise(Tenancy.use((t) => t.createCtiIntegration(tenantId, provider)))
  } finally {
    await rt.dispose()
  }
}
