import { createServer, type IncomingMessage, type Server } from "node:http"
import type { AddressInfo } from "node:net"

/**
 * A local stand-in for Cloudflare's siteverify with its wire shape: form fields in (`secret`, `response`, `remoteip`,
 * `idempotency_key`), `{ success, "error-codes", challenge_ts, hostname, action, cdata }` out. Cloudflare's documented
 * dummy secrets behave as documented (1x… passes, 2x… fails, 3x… "token already spent"); `down` answers 500.
 */
export const PASS_SECRET = "1x0000000000000000000000000000000AA"
export const FAIL_SECRET = "2x0000000000000000000000000000000AA"
export const SPENT_SECRET = "3x0000000000000000000000000000000AA"

export interface TurnstileStub {
  readonly url: string
  /** The form bodies received, in order. */
  readonly requests: ReadonlyArray<Record<string, string>>
  /** The hostname a passing answer names (the page's host). */
  hostname: string
  down: boolean
  close(): Promise<void>
}

const readForm = async (req: IncomingMessage) => {
  const chunks: Array<Buffer> = []
  for await (const c of req) chunks.push(c as Buffer)
  return Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString("utf8")))
}

export const startTurnstileStub = async (hostname: string): Promise<TurnstileStub> => {
  const requests: Array<Record<string, string>> = []
  const stub = { url: "", requests, hostname, down: false, close: async () => {} } as TurnstileStub
  const server: Server = createServer(async (req, res) => {
    const form = await readForm(req)
    requests.push(form)
    if (stub.down) {
      res.writeHead(500).end("internal")
      return
    }
    const answer = form.secret === PASS_SECRET && form.response !== undefined && form.response !== ""
      ? { success: true, "error-codes": [], challenge_ts: new Date().toISOString(), hostname: stub.hostname, action: "newsletter_subscribe", cdata: "" }
      : form.secret === SPENT_SECRET
      ? { success: false, "error-codes": ["timeout-or-duplicate"] }
      : form.secret === FAIL_SECRET
      ? { success: false, "error-codes": ["invalid-input-response"] }
      : { success: false, "error-codes": ["invalid-input-secret"] }
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  ;(stub as { url: string }).url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/turnstile/v0/siteverify`
  stub.close = () => new Promise<void>((resolve) => server.close(() => resolve()))
  return stub
}
