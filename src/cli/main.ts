import { NodeRuntime } from "@effect/platform-node"
import { Cause, Config, ConfigProvider, Effect, Layer, Runtime } from "effect"
import { parseArgs } from "node:util"
import type { Role } from "../app/Platform.ts"
import { AppConfig } from "../../core/config/AppConfig.ts"
import { Database, migrateDatabase } from "../../core/db/Database.ts"
import type { DatabaseFailure } from "../../core/db/DatabaseFailure.ts"
import { Tenancy, TenancyError } from "../tenancy/Tenancy.ts"
import { errorText, log, Logging } from "../../core/observability/log.ts"
import { ensureDemoTenant } from "./demo.ts"
import { ensureDemoEmailChannel } from "./demoEmail.ts"
import { ensureDemoWebSource } from "./sdkDemo.ts"
import { ensureDemoStaff } from "./demoStaff.ts"
import { channelCommand } from "./channel.ts"
import { journeyCommand } from "./journey.ts"
import { segmentCommand } from "./segment.ts"
import { broadcastCommand } from "./broadcast.ts"
import { privacyCommand } from "./privacy.ts"
import { webSourceCommand } from "./webSource.ts"
import { mailForStart } from "./mailCatcher.ts"
import { oidcCommand } from "./oidc.ts"
import { staffCommand } from "./staff.ts"
import { OPTIONS, USAGE } from "./usage.ts"

const out = (value: unknown) => Effect.sync(() => process.stdout.write(JSON.stringify(value) + "\n"))

const { positionals, values } = parseArgs({ allowPositionals: true, options: OPTIONS })

const need = (flag: string, value: string | undefined) =>
  value ? Effect.succeed(value) : Effect.fail(new TenancyError({ message: `missing --${flag}` }))

const AdminLayer = Tenancy.layer.pipe(
  Layer.provideMerge(Database.layer),
  Layer.provide(Layer.effectDiscard(Effect.gen(function*() {
    const c = yield* AppConfig
    yield* migrateDatabase(c.databaseUrl)
  }))),
  Layer.provideMerge(AppConfig.layer)
)

/** The command's one JSON object on stdout is an error; the exit code says whether a retry can help. */
const refuse = (message: string, exitCode: number) =>
  Effect.sync(() => {
    process.stdout.write(JSON.stringify({ error: message }) + "\n")
    process.exitCode = exitCode
  })

/** EX_TEMPFAIL (sysexits.h): the database is away, the same command later may work. */
const EXIT_UNAVAILABLE = 75

const databaseRefused = (e: DatabaseFailure) =>
  e._tag === "DatabaseUnavailable"
    ? Effect.logWarning("database unavailable").pipe(Effect.annotateLogs({ code: e.code, error: errorText(e.cause) }),
      Effect.andThen(refuse(`database unavailable (${e.code || "no code"}); retry later`, EXIT_UNAVAILABLE)))
    : Effect.logError("database error").pipe(Effect.annotateLogs({ code: e.code, error: errorText(e.cause) }),
      Effect.andThen(refuse(`database error (${e.code || "no code"})`, 1)))

const admin = <A>(effect: Effect.Effect<A, TenancyError | DatabaseFailure, Tenancy | Database | AppConfig>) =>
  effect.pipe(
    Effect.flatMap(out),
    Effect.provide(AdminLayer),
    Effect.catchTags({
      TenancyError: (e) => refuse(e.message, 2),
      DatabaseUnavailable: databaseRefused,
      DatabaseError: databaseRefused
    })
  )

const serve = (role: Role, announce: Effect.Effect<unknown, TenancyError | DatabaseFailure, Tenancy | Database | AppConfig>) =>
  Effect.gen(function*() {
    const config = yield* AppConfig
    // Loaded only to serve: the whole platform's modules cost every admin command about a second to import.
    const { Platform } = yield* Effect.promise(() => import("../app/Platform.ts"))
    const app = Platform(role, config.port).pipe(
      Layer.tap((context) =>
        announce.pipe(Effect.provide(Tenancy.layer), Effect.provideContext(context), Effect.provideService(AppConfig, config), Effect.orDie))
    )
    return yield* Layer.launch(app)
  }).pipe(Effect.provide(AppConfig.layer))

/**
 * The environment with some variables replaced (undefined: left as it is), for every configuration the platform reads
 * (AppConfig, MessagingConfig, ...): a provider of its own, since Effect reads process.env once, at the first lookup.
 */
const withEnvironment = (variables: Record<string, string | undefined>) => {
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries({ ...process.env, ...variables })) if (value !== undefined) env[name] = value
  return ConfigProvider.layer(ConfigProvider.fromEnv({ env }))
}

const baseInfo = (role: Role) =>
  Effect.gen(function*() {
    const config = yield* AppConfig
    return { role, base_url: `http://127.0.0.1:${config.port}`, docs: `http://127.0.0.1:${config.port}/docs`, namespace: config.namespace }
  })

const command = (): Effect.Effect<unknown, unknown, never> => {
  const [cmd, sub] = positionals
  if (values.help || !cmd) return Effect.sync(() => console.error(USAGE))
  if (cmd === "channel") return admin(channelCommand(positionals.slice(1), values))
  if (cmd === "journey") return admin(journeyCommand(positionals.slice(1), values))
  if (cmd === "segment") return admin(segmentCommand(positionals.slice(1), values))
  if (cmd === "broadcast") return admin(broadcastCommand(positionals.slice(1), values))
  if (cmd === "privacy") return admin(privacyCommand(positionals.slice(1), values))
  if (cmd === "web-source") return admin(webSourceCommand(positionals.slice(1), values))
  if (cmd === "oidc") return admin(oidcCommand(positionals.slice(1), values))
  if (cmd === "staff") return admin(staffCommand(positionals.slice(1), values))
  switch (`${cmd} ${sub ?? ""}`.trim()) {
    case "start":
      // Without GEP_SMTP_URL, a local mail catcher for the life of the command; its UI is printed beside the base URL.
      return Effect.scoped(Effect.gen(function*() {
        const mail = yield* mailForStart(yield* Config.String("GEP_SMTP_URL").pipe(Config.withDefault("")))
        return yield* serve("all", Effect.gen(function*() {
          const demo = yield* ensureDemoTenant
          // The browser SDK's demo booking page (development only): a failure to prepare it never stops the start.
          const sdk_demo = yield* ensureDemoWebSource(demo, (yield* AppConfig).port, mail.announce.mail_ui).pipe(Effect.orElseSucceed(() => "unavailable"))
          // With the local catcher, the demo tenant gets a sender so its first journey email is caught, not failed.
          const demo_email = mail.announce.mail_ui === undefined ? undefined
            : yield* ensureDemoEmailChannel(demo, mail.announce.mail_ui).pipe(
              Effect.tapError((e) => Effect.logWarning("the demo tenant's email channel could not be configured").pipe(Effect.annotateLogs({ error: String(e) }))),
              Effect.orElseSucceed(() => undefined))
          // The operator console and its demo administrator: the line says where to sign in and where the code arrives.
          const staff = yield* ensureDemoStaff(demo, (yield* AppConfig).port, mail.announce.mail_ui)
          yield* out({ ...(yield* baseInfo("all")), ...mail.announce, ...staff, demo_tenant: demo, ...(demo_email && { demo_email }), sdk_demo })
        })).pipe(Effect.provide(withEnvironment({ GEP_SMTP_URL: mail.smtpUrl, GEP_SDK_DEMO: "true" })))
      }))
    case "serve": {
      const role = values.role as Role
      if (!["all", "ingress", "worker"].includes(role)) return Effect.sync(() => console.error(USAGE))
      return serve(role, Effect.flatMap(baseInfo(role), out))
    }
    case "migrate":
      return Effect.gen(function*() {
        const c = yield* AppConfig
        const applied = yield* migrateDatabase(c.databaseUrl)
        yield* out({ migrated: true, applied })
      }).pipe(Effect.provide(AppConfig.layer), Effect.catchTags({ DatabaseUnavailable: databaseRefused, DatabaseError: databaseRefused }))
    case "tenant create":
      return admin(Effect.gen(function*() {
        return yield* (yield* Tenancy).createTenant(yield* need("name", values.name))
      }))
    case "key create":
      return admin(Effect.gen(function*() {
        const tenant = yield* need("tenant", values.tenant)
        const scopes = (yield* need("scopes", values.scopes)).split(",").map((s) => s.trim()).filter(Boolean)
        const rate = values["rate-limit"] === undefined ? undefined : Number(values["rate-limit"])
        return yield* (yield* Tenancy).createKey(tenant, scopes, values.test ?? false, rate, values.name)
      }))
    case "key revoke":
      return admin(Effect.gen(function*() {
        return yield* (yield* Tenancy).revokeKey(yield* need("key-id", values["key-id"]))
      }))
    case "hotel create":
      return admin(Effect.gen(function*() {
        const tenant = yield* need("tenant", values.tenant)
        const code = yield* need("code", values.code)
        const name = yield* need("name", values.name)
        const timezone = yield* need("timezone", values.timezone)
        return yield* (yield* Tenancy).createHotel(tenant, {
          code, name, timezone, country: values.country, default_language: values.language,
          check_in_time: values["check-in-time"], check_out_time: values["check-out-time"]
        })
      }))
    case "channel-map set":
      return admin(Effect.gen(function*() {
        const tenant = yield* need("tenant", values.tenant)
        const code = yield* need("code", values.code)
        const name = yield* need("name", values.name)
        const type = yield* need("type", values.type)
        return yield* (yield* Tenancy).setChannelMapping(tenant, { code, name, type })
      }))
    case "cti create":
      return admin(Effect.gen(function*() {
        const tenant = yield* need("tenant", values.tenant)
        return yield* (yield* Tenancy).createCtiIntegration(tenant, yield* need("provider", values.provider))
      }))
    case "conflicts list":
      return admin(Effect.gen(function*() {
        return yield* (yield* Tenancy).listConflicts(yield* need("tenant", values.tenant), 100)
      }))
    default:
      return Effect.sync(() => {
        console.error(`unknown command: ${positionals.join(" ")}\n${USAGE}`)
        process.exitCode = 2
      })
  }
}

// A SIGTERM is an orchestrator's ordinary stop: after the graceful shutdown the process exits 0, not 130.
// Shutdown is bounded: should draining hang (a stuck connection, a peer gone silent), the process still exits.
let terminated = false
process.once("SIGTERM", () => {
  terminated = true
  const limitMs = Number(process.env.GEP_SHUTDOWN_TIMEOUT_MS ?? 25_000)
  setTimeout(() => {
    // A timer callback, outside any fiber: the plain log() (same logger and format).
    log("error", "graceful shutdown did not finish in time; exiting", { limit_ms: limitMs })
    process.exit(1)
  }, limitMs).unref()
})
// Every line of the command, the runtime's own included, is a JSON line on stderr: a failure is reported here, inside
// Logging, instead of by runMain's default reporter (which would print to stdout).
const main = command().pipe(
  Effect.tapCause((cause) => Cause.hasInterruptsOnly(cause) ? Effect.void : Effect.logError("command failed", cause)),
  Effect.provide(Logging)
)
NodeRuntime.runMain(main as Effect.Effect<unknown>, {
  disableErrorReporting: true,
  teardown: (exit, onExit) => Runtime.defaultTeardown(exit, (code) => onExit(terminated && code === 130 ? 0 : code))
})
