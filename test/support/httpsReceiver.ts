import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import type { IncomingHttpHeaders } from "node:http"
import { createServer, type Server } from "node:https"
import { tmpdir } from "node:os"
import { join } from "node:path"
import tls from "node:tls"
import { webhookBodyProblem } from "../../schemas/webhookPayloads.ts"

export interface TestCertificate {
  readonly cert: string
  readonly key: string
}

/** A self-signed certificate for localhost and 127.0.0.1, made by the machine's openssl at test time (valid 1 day). */
export const makeCertificate = (): TestCertificate => {
  const dir = mkdtempSync(join(tmpdir(), "gep-cert-"))
  try {
    execFileSync("openssl", [
      "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
      "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem"), "-subj", "/CN=localhost",
      "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"
    ], { stdio: "ignore" })
    return { cert: readFileSync(join(dir, "cert.pem"), "utf8"), key: readFileSync(join(dir, "key.pem"), "utf8") }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * Test-only trust of the receiver's certificate, the in-process equivalent of NODE_EXTRA_CA_CERTS: Node's default
 * store plus this one. The deliverer passes no CA option of its own; verification stays on.
 */
export const trustForThisProcess = (cert: TestCertificate) =>
  tls.setDefaultCACertificates([...tls.getCACertificates("default"), cert.cert])

export interface Received {
  readonly path: string
  readonly headers: IncomingHttpHeaders
  /** The raw bytes as they arrived: what a receiver must verify the signature over. */
  readonly raw: Buffer
  readonly at: number
  readonly status: number
}

export type Responder = (r: Omit<Received, "status">, index: number) => number | { status: number; delayMs?: number; headers?: Record<string, string> }

export interface Receiver {
  readonly port: number
  readonly url: (path: string) => string
  readonly received: Array<Received>
  /** Requests to one path, in arrival order. */
  readonly on: (path: string) => Array<Received>
  /** Sets the answer for a path (default: 200). */
  readonly respond: (path: string, responder: Responder) => void
  readonly waitFor: (path: string, count: number, timeoutMs?: number) => Promise<Array<Received>>
  /** Deliveries whose body is off its event type's schema (schemas/webhookPayloads.ts): closing fails while any is. */
  readonly offSchema: Array<string>
  readonly close: () => Promise<void>
}

/** Why a delivery's body is off the schema its X-Webhook-Event names, or undefined (not a delivery, or fitting). */
const deliveryProblem = (headers: IncomingHttpHeaders, raw: Buffer): string | undefined => {
  const eventType = headers["x-webhook-event"]
  if (typeof eventType !== "string") return undefined
  try {
    return webhookBodyProblem(eventType, JSON.parse(raw.toString("utf8")))
  } catch (e) {
    return `not JSON: ${String(e)}`
  }
}

/**
 * A real HTTPS server on loopback that records every request and answers as each path's responder says. Every
 * delivery's body is checked against its event type's schema: the suite validates what partners really receive.
 */
export const startReceiver = async (cert: TestCertificate): Promise<Receiver> => {
  const received: Array<Received> = []
  const offSchema: Array<string> = []
  const responders = new Map<string, Responder>()
  const server: Server = createServer({ cert: cert.cert, key: cert.key }, (req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const path = req.url ?? "/"
      const request = { path, headers: req.headers, raw: Buffer.concat(chunks), at: Date.now() }
      const problem = deliveryProblem(req.headers, request.raw)
      if (problem !== undefined) offSchema.push(`${String(req.headers["x-webhook-event"])}: ${problem}`)
      const index = received.filter((r) => r.path === path).length
      const answer = responders.get(path)?.(request, index) ?? 200
      const { status, delayMs = 0, headers = {} } = typeof answer === "number" ? { status: answer } : answer
      received.push({ ...request, status })
      setTimeout(() => res.writeHead(status, { "content-type": "text/plain", ...headers }).end(`status ${status}`), delayMs)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as { port: number }).port
  const on = (path: string) => received.filter((r) => r.path === path)
  return {
    port,
    url: (path) => `https://localhost:${port}${path}`,
    received,
    on,
    respond: (path, responder) => void responders.set(path, responder),
    waitFor: async (path, count, timeoutMs = 15_000) => {
      const deadline = Date.now() + timeoutMs
      while (on(path).length < count) {
        if (Date.now() > deadline) throw new Error(`receiver: ${on(path).length} of ${count} requests on ${path} after ${timeoutMs} ms`)
        await new Promise((r) => setTimeout(r, 25))
      }
      return on(path)
    },
    offSchema,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
      if (offSchema.length > 0) throw new Error(`webhook bodies off their schema:\n${offSchema.join("\n")}`)
    }
  }
}
