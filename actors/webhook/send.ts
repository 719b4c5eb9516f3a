import http from "node:http"
import https from "node:https"
import { classifyAddress, isIpLiteral } from "../../core/webhook/addressPolicy.ts"
import { guardedLookup, policyFor, type Resolver } from "../../core/webhook/destination.ts"

export type SendResult =
  | { readonly kind: "response"; readonly status: number; readonly retryAfter?: number; readonly excerpt: string; readonly durationMs: number }
  | { readonly kind: "error"; readonly error: string; readonly durationMs: number }

export interface SendOptions {
  readonly timeoutMs: number
  readonly allowLoopback: boolean
  /** Tests only: a resolver standing in for DNS. */
  readonly resolve?: Resolver
}

const EXCERPT_BYTES = 1024

const describe = (e: NodeJS.ErrnoException): string => {
  const text = e.code && !e.message.includes(e.code) ? `${e.code}: ${e.message}` : e.message
  return text.slice(0, 300)
}

const retryAfterOf = (value: string | undefined): number | undefined => {
  if (value === undefined) return undefined
  const n = Number(value)
  return Number.isFinite(n) ? n : undefined
}

/**
 * One POST to a subscription URL. The address is checked where the socket resolves it (`guardedLookup`), so the
 * connection goes to the checked address; an IP literal host is checked here because Node skips `lookup` for it.
 * TLS is Node's default (system store + NODE_EXTRA_CA_CERTS, verification on). Redirects are not followed (a 3xx is a
 * failed attempt), a fresh connection is used per attempt, and one deadline covers connect, TLS, request and status.
 */
export const postWebhook = (url: URL, headers: Record<string, string>, body: string, options: SendOptions): Promise<SendResult> =>
  new Promise((resolve) => {
    const started = performance.now()
    let settled = false
    let timer: NodeJS.Timeout | undefined
    const done = (r: { kind: "response"; status: number; retryAfter?: number; excerpt: string } | { kind: "error"; error: string }) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve({ ...r, durationMs: Math.round(performance.now() - started) })
    }
    const policy = policyFor(url, options.allowLoopback)
    const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname
    if (isIpLiteral(host)) {
      const verdict = classifyAddress(host, policy)
      if (!verdict.allowed) return done({ kind: "error", error: `blocked destination: ${host} (${verdict.range})` })
    } else if (url.protocol !== "https:" && url.protocol !== "http:") {
      return done({ kind: "error", error: `unsupported scheme ${url.protocol}` })
    }
    let excerpt = ""
    let finish: (() => void) | undefined
    const client = url.protocol === "https:" ? https : http
    const req = client.request({
      method: "POST",
      hostname: host,
      port: url.port === "" ? undefined : Number(url.port),
      path: `${url.pathname}${url.search}`,
      headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
      lookup: guardedLookup(policy, options.resolve),
      agent: false
    }, (res) => {
      const status = res.statusCode ?? 0
      const retryAfter = retryAfterOf(res.headers["retry-after"] as string | undefined)
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => {
        excerpt += chunk
        // The status is what counts; a large body is not read to its end.
        if (excerpt.length >= EXCERPT_BYTES) res.destroy()
      })
      finish = () => done({ kind: "response", status, ...(retryAfter === undefined ? {} : { retryAfter }), excerpt: excerpt.slice(0, EXCERPT_BYTES) })
      res.on("end", finish)
      res.on("close", finish)
      res.on("error", finish)
    })
    req.on("error", (e: NodeJS.ErrnoException) => done({ kind: "error", error: describe(e) }))
    timer = setTimeout(() => {
      // A status already received counts (the receiver answered in time); otherwise the attempt timed out.
      if (finish) finish()
      else done({ kind: "error", error: `timed out after ${options.timeoutMs} ms` })
      req.destroy()
    }, options.timeoutMs)
    req.end(body)
  })
