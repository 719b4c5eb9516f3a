import { existsSync } from "node:fs"
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from "node:http"
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core"

declare const window: any // inside page.evaluate callbacks (run in Chromium)

// The browser SDK's test rig: Debian's Chromium driven by playwright-core (never a downloaded browser), pages served by
// a small node:http server on an origin other than the platform's, and a stub ingestion endpoint that records what
// arrives and answers what a test tells it to.

export const CHROMIUM = "/usr/bin/chromium"

export const launchChromium = (): Promise<Browser> => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run \`bash infra/services.sh up\` (it runs apt-get install -y chromium)`)
  // launch() gives every browser a fresh temporary user-data-dir of its own (Playwright refuses --user-data-dir here).
  return chromium.launch({
    executablePath: CHROMIUM, headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync"]
  })
}

const listen = (server: Server, host?: string) =>
  new Promise<number>((resolve) => server.listen(0, host, () => resolve((server.address() as { port: number }).port)))

const close = (server: Server) => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) })

export interface PageServer {
  /** `http://localhost:<port>`: another origin than the platform's `http://127.0.0.1:<port>`. */
  readonly origin: string
  readonly close: () => Promise<void>
}

/**
 * `/page.html` loads the SDK from `sdkUrl`; `/sri.html?integrity=…` loads it with SRI; `/other.html` is somewhere to go.
 * Given the script's code instead (`{ code }`), the server serves it itself at `/svc-events.js` (no platform needed).
 */
export const startPageServer = async (from: string | { readonly code: string }): Promise<PageServer> => {
  const sdkUrl = typeof from === "string" ? from : "/svc-events.js"
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x")
    if (typeof from !== "string" && url.pathname === sdkUrl) {
      return void res.writeHead(200, { "content-type": "application/javascript; charset=utf-8" }).end(from.code)
    }
    const integrity = (url.searchParams.get("integrity") ?? "").replace(/[^A-Za-z0-9+/=-]/g, "")
    const body = url.pathname === "/page.html"
      ? `<!doctype html><html><head><title>Booking</title><script src="${sdkUrl}"></script></head><body>Book</body></html>`
      : url.pathname === "/sri.html"
      ? `<!doctype html><html><head><script src="${sdkUrl}" integrity="${integrity}" crossorigin="anonymous"></script></head><body>SRI</body></html>`
      : url.pathname === "/other.html" ? "<!doctype html><html><body>Elsewhere</body></html>" : undefined
    if (body === undefined) return void res.writeHead(404).end()
    res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).end(body)
  })
  const port = await listen(server) // every address, so "localhost" answers on IPv4 and IPv6
  return { origin: `http://localhost:${port}`, close: () => close(server) }
}

export interface Arrival {
  readonly method: string
  readonly at: number
  readonly url: string
  readonly contentType: string | undefined
  /** Sec-Fetch-Mode: "no-cors" for a beacon, "cors" for the SDK's fetch. */
  readonly mode: string | undefined
  readonly body: any
}

export interface Stub {
  readonly url: string
  readonly arrivals: Array<Arrival>
  /** Answers for the next POSTs, in order (status 0: the connection is cut); once used up, 202. */
  readonly answers: Array<{ status: number; headers?: Record<string, string> }>
  readonly close: () => Promise<void>
}

/** A stand-in ingestion endpoint with CORS like the platform's (the Origin echoed, Retry-After exposed). */
export const startStub = async (): Promise<Stub> => {
  const arrivals: Array<Arrival> = []
  const answers: Stub["answers"] = []
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8")
      let body: unknown = raw
      try { body = JSON.parse(raw) } catch { /* kept raw */ }
      arrivals.push({ method: req.method ?? "", at: Date.now(), url: req.url ?? "", contentType: req.headers["content-type"], mode: req.headers["sec-fetch-mode"] as string | undefined, body })
      const cors = {
        "access-control-allow-origin": req.headers.origin ?? "*", vary: "Origin",
        "access-control-expose-headers": "Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset"
      }
      if (req.method === "OPTIONS") return void res.writeHead(204, { ...cors, "access-control-allow-methods": "POST, OPTIONS", "access-control-allow-headers": "Content-Type, X-SVC-Key" }).end()
      const answer = answers.shift() ?? { status: 202 }
      if (answer.status === 0) return void req.socket.destroy() // a network error
      res.writeHead(answer.status, { ...cors, ...answer.headers, "content-type": "application/json" })
        .end(JSON.stringify(answer.status < 300 ? { received: 1, accepted: 1, duplicate: 0, rejected: 0, results: [] } : { error: { code: "x", message: "x" } }))
    })
  })
  const port = await listen(server, "127.0.0.1")
  return { url: `http://127.0.0.1:${port}/ingest`, arrivals, answers, close: () => close(server) }
}

export interface Wire {
  /** The platform as the browser sees it (scripts and events both go through here). */
  readonly url: string
  /** Every request that reached the wire, preflights and beacons included (Playwright's request events show neither). */
  readonly seen: Array<{ method: string; path: string; at: number; mode: string | undefined }>
  readonly close: () => Promise<void>
}

/** A recording pass-through in front of the platform: what the browser really sent, counted at the wire. */
export const startWire = async (target: string): Promise<Wire> => {
  const seen: Wire["seen"] = []
  const to = new URL(target)
  const server = createServer((req, res) => {
    seen.push({ method: req.method ?? "", path: req.url ?? "", at: Date.now(), mode: req.headers["sec-fetch-mode"] as string | undefined })
    const out = request({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: { ...req.headers, host: to.host } }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers)
      up.pipe(res)
    })
    out.on("error", () => { if (!res.headersSent) res.writeHead(502); res.end() })
    req.pipe(out)
  })
  const port = await listen(server, "127.0.0.1")
  return { url: `http://127.0.0.1:${port}`, seen, close: () => close(server) }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export const waitUntil = async <A>(f: () => A | undefined | Promise<A | undefined>, ms = 20_000): Promise<A> => {
  const until = Date.now() + ms
  for (;;) {
    const v = await f()
    if (v !== undefined && v !== false) return v
    if (Date.now() > until) throw new Error("timed out")
    await sleep(100)
  }
}

/** Script errors of every page opened by `openPage` (a test asserts there are none). */
export const pageErrors: Array<Error> = []

/** Opens the SDK page and runs `init` with the given options. */
export const openPage = async (context: BrowserContext, origin: string, init: Record<string, unknown>): Promise<Page> => {
  const page = await context.newPage()
  page.on("pageerror", (e) => { pageErrors.push(e) })
  await page.goto(`${origin}/page.html`)
  await page.evaluate((o) => (window as any).svcEvents.init(o), init)
  return page
}

/** Runs one SDK command in the page with JSON arguments. */
export const sdk = (page: Page, command: string, ...args: Array<unknown>) =>
  page.evaluate(([c, a]) => (window as any).svcEvents[c as string](...(a as Array<unknown>)), [command, args] as const)

/** abandonOnLeave with a getCart that answers this cart. */
export const abandonOnLeave = (page: Page, cart: Record<string, unknown>) =>
  page.evaluate((c) => (window as any).svcEvents.abandonOnLeave(() => c), cart)

/** Leaves the page the way a guest does: navigation fires pagehide and visibilitychange→hidden. */
export const leave = (page: Page, origin: string) => page.goto(`${origin}/other.html`)
