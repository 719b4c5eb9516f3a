import { Effect, Option, type Scope } from "effect"
import { createServer } from "node:net"
import { errorText, log } from "../../core/observability/log.ts"

// `npm start` gives a newcomer somewhere to see mail without configuring anything: without GEP_SMTP_URL it runs
// maildev (an SMTP catcher with a web UI) in this process on loopback and points the platform's email at it.
// maildev is a devDependency: an image installed with --omit=dev has none, and then mail simply cannot leave.

type MailDevModule = typeof import("maildev")

export interface MailCatcher {
  /** Where the platform sends: `smtp://127.0.0.1:<port>`. */
  readonly smtpUrl: string
  /** The web UI (and its REST API under /api, e.g. GET /api/email). */
  readonly webUrl: string
  readonly stop: () => Promise<void>
}

/** maildev when installed, else undefined (any other failure to load it is a real error). */
export const loadMailDev = (): Promise<MailDevModule | undefined> =>
  import("maildev").then(
    (m) => m,
    (e: { code?: string }) => (e.code === "ERR_MODULE_NOT_FOUND" ? undefined : Promise.reject(e))
  )

/** Whether nothing listens on 127.0.0.1:port right now. */
const portFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer()
    server.once("error", () => resolve(false))
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)))
  })

/** maildev's own ports when free (a UI address that stays the same across restarts), else any free ones. */
export const PREFERRED = { smtp: 1025, web: 1080 } as const

export interface CatcherOptions {
  /** Ports to try first; 0 for any free port. */
  readonly smtp?: number
  readonly web?: number
}

export const startMailCatcher = async (maildev: MailDevModule, options: CatcherOptions = {}): Promise<MailCatcher> => {
  const want = async (port: number | undefined) => (port !== undefined && port > 0 && (await portFree(port)) ? port : 0)
  const server = new maildev.MailDev({
    smtp: await want(options.smtp),
    web: await want(options.web),
    ip: "127.0.0.1",
    webIp: "127.0.0.1",
    silent: true,
    // In memory, the newest 500: a restart starts an empty inbox (mail of an earlier database would only confuse).
    maxEmails: 500
  })
  // maildev's API server announces itself with console.info on stdout, which is the CLI's one JSON line: while it
  // starts (nothing else runs yet), console output becomes our JSON log lines on stderr.
  const original = { info: console.info, log: console.log }
  console.info = console.log = (...args: Array<unknown>) => log("debug", args.map(String).join(" "), { component: "maildev" })
  const servers = await server.start().finally(() => {
    console.info = original.info
    console.log = original.log
  })
  const smtp = servers.smtp.getAddress()
  const web = servers.api?.getAddress()
  return {
    smtpUrl: `smtp://127.0.0.1:${smtp.port}`,
    webUrl: `http://127.0.0.1:${web?.port ?? 0}`,
    stop: () => server.stop()
  }
}

export interface MailForStart {
  /** What GEP_SMTP_URL becomes for the platform: the catcher's URL, or undefined to leave the environment as it is. */
  readonly smtpUrl: string | undefined
  /** Printed beside the base URL: the catcher's UI and SMTP address (never an operator's GEP_SMTP_URL: it may hold credentials). */
  readonly announce: { readonly mail_ui?: string; readonly smtp_url?: string }
}

/**
 * What `gep start` does about mail. GEP_SMTP_URL set (`configured`): nothing, it is used. Unset: a catcher, stopped
 * with the scope (the start command's life). Unset and maildev not installed: a warning, and email cannot leave.
 */
export const mailForStart = (
  configured: string,
  options: CatcherOptions = PREFERRED,
  load: () => Promise<MailDevModule | undefined> = loadMailDev
): Effect.Effect<MailForStart, never, Scope.Scope> =>
  Effect.gen(function*() {
    const none = { smtpUrl: undefined, announce: {} }
    if (configured.trim() !== "") return none
    const maildev = yield* Effect.promise(load)
    if (maildev === undefined) {
      yield* Effect.logWarning("GEP_SMTP_URL is not set and maildev is not installed (npm install without --omit=dev brings it): email cannot leave")
      return none
    }
    const catcher = yield* Effect.acquireRelease(
      Effect.tryPromise(() => startMailCatcher(maildev, options)),
      (c) => Effect.promise(() => c.stop()).pipe(Effect.ignore)
    ).pipe(Effect.tapError((e) => Effect.logWarning("the local mail catcher did not start: email cannot leave").pipe(Effect.annotateLogs({ error: errorText(e.cause) }))), Effect.option)
    if (Option.isNone(catcher)) return none
    const { smtpUrl, webUrl } = catcher.value
    yield* Effect.logInfo("GEP_SMTP_URL is not set: email goes to the local mail catcher").pipe(Effect.annotateLogs({ mail_ui: webUrl, smtp_url: smtpUrl }))
    return { smtpUrl, announce: { mail_ui: webUrl, smtp_url: smtpUrl } }
  })
