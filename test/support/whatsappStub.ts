import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { setTimeout as sleep } from "node:timers/promises"
import { answerSend, type InjectedFailure, type NumberFixture, type RecipientFailure } from "./whatsappSendAnswer.ts"
import { deliverWebhook, statusSequence, type StatusOrder, type StubPost } from "./whatsappWebhooks.ts"
import {
  defaultFailure, digitsOf, inboundValue, newWamid, signWhatsAppBody, statusObject, webhookEnvelope,
  type InboundInput, type StatusInput, type StatusName
} from "./whatsappWire.ts"

export type { NumberFixture, RecipientFailure, TemplateFixture } from "./whatsappSendAnswer.ts"
export type { StatusOrder, StubPost } from "./whatsappWebhooks.ts"
export type { InboundInput, StatusInput, StatusName, TemplateCategory, WhatsAppErrorDetail } from "./whatsappWire.ts"
export { signWhatsAppBody } from "./whatsappWire.ts"

export interface StubCall {
  /** From the path; "" when the path did not match `/{version?}/{phone_number_id}/messages`. */
  readonly phoneNumberId: string
  /** The parsed JSON body (the raw text when it was not JSON). */
  readonly body: any
  readonly rawBody: string
  readonly headers: IncomingHttpHeaders
  readonly at: number
  readonly answeredStatus: number
  readonly answer: unknown
  /** Only for an accepted send. */
  readonly wamid?: string
}

export interface WhatsAppStubOptions {
  readonly numbers: ReadonlyArray<NumberFixture>
  readonly webhookUrl?: string
  /** Statuses posted after each accepted send, in this (event-time) order. Default: none. */
  readonly autoStatuses?: ReadonlyArray<StatusName>
  /** The order the auto statuses are posted in; their timestamps keep the event order. Default in_order. */
  readonly order?: StatusOrder
  /** Re-posts of a webhook the platform did not answer 2xx (Meta retries too). Default 0. */
  readonly webhookRetries?: number
}

export interface WhatsAppStub {
  /** `http://127.0.0.1:<port>/v21.0`, for GEP_WHATSAPP_API_URL. Paths without the version work too. */
  readonly baseUrl: string
  readonly port: number
  /** Every request to the API, in arrival order, refused ones included. */
  readonly calls: ReadonlyArray<StubCall>
  /** Every webhook posted to the platform, in the order they finished. */
  readonly posts: ReadonlyArray<StubPost>
  /** biz_opaque_callback_data → number of accepted (200) sends that carried it. */
  countByCallbackData(): Map<string, number>
  waitForCalls(n: number, timeoutMs?: number): Promise<ReadonlyArray<StubCall>>
  setWebhookUrl(url: string | undefined): void
  setAutoStatuses(statuses: ReadonlyArray<StatusName>, order?: StatusOrder): void
  /** The next `n` sends (after the token check) get this status and body (default: Meta's error for the status; 429 adds Retry-After: 1). */
  failNext(n: number, status: number, body?: unknown, headers?: Record<string, string>): void
  /** A permanent failure for that number (compared by digits). Default mode: sync for 131030, async otherwise. */
  failRecipient(to: string, code: number, title: string, options?: Omit<RecipientFailure, "code" | "title">): void
  /** Hold every API answer `ms` (the send is recorded and accepted first, as when a client times out on Meta). */
  delayMs(ms: number): void
  postInbound(input: { readonly phoneNumberId: string } & InboundInput): Promise<number>
  postStatus(input: { readonly phoneNumberId: string } & StatusInput): Promise<number>
  /** Several statuses in one envelope, as Meta sometimes batches them. */
  postStatuses(phoneNumberId: string, statuses: ReadonlyArray<StatusInput>): Promise<number>
  /** Posts these exact bytes; with no signature, no X-Hub-Signature-256 header. */
  postRaw(body: string, signature?: string): Promise<number>
  /** The GET verification handshake against the webhook URL. */
  handshake(verifyToken: string, challenge?: string, mode?: string): Promise<{ status: number; body: string }>
  /** Sends still being answered plus webhooks still being posted. */
  pendingPosts(): number
  /** Resolves once every answer and status webhook in flight is done. */
  settled(): Promise<void>
  /** Forget calls and posts and every fault (failNext, failRecipient, delayMs); the webhook URL and auto statuses stay. */
  clear(): void
  /** Waits for the webhooks in flight; answers still held by delayMs are cut. */
  close(): Promise<void>
}

const messagesPath = /^(?:\/v\d+(?:\.\d+)?)?\/([^/?]+)\/messages\/?(?:\?.*)?$/

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    req.on("error", reject)
  })

/** A node:http server with the WhatsApp Business Cloud API's send endpoint that posts signed webhooks back. */
export const startWhatsAppStub = async (options: WhatsAppStubOptions): Promise<WhatsAppStub> => {
  const numbers = new Map(options.numbers.map((n) => [n.phoneNumberId, {
    ...n, displayPhoneNumber: n.displayPhoneNumber ?? "15550001111", wabaId: n.wabaId ?? "100000000000001"
  }]))
  let webhookUrl = options.webhookUrl
  let autoStatuses: ReadonlyArray<StatusName> = options.autoStatuses ?? []
  let order: StatusOrder = options.order ?? "in_order"
  let calls: Array<StubCall> = []
  let posts: Array<StubPost> = []
  let nextFailures: Array<InjectedFailure> = []
  let recipientFailures = new Map<string, RecipientFailure>()
  let answerDelayMs = 0
  const inflight = new Set<Promise<unknown>>()
  const closing = new AbortController()
  const waiters = new Set<() => void>()

  const track = <A>(work: Promise<A>): Promise<A> => {
    inflight.add(work)
    void work.finally(() => inflight.delete(work)).catch(() => undefined)
    return work
  }

  const numberOrThrow = (phoneNumberId: string) => {
    const number = numbers.get(phoneNumberId)
    if (number === undefined) throw new Error(`whatsappStub: no fixture for phone_number_id ${phoneNumberId}`)
    return number
  }

  const post = async (kind: StubPost["kind"], body: string, signature: string | undefined): Promise<number> => {
    if (webhookUrl === undefined) throw new Error("whatsappStub: no webhook URL set (setWebhookUrl)")
    const record = await deliverWebhook(webhookUrl, kind, body, signature, options.webhookRetries ?? 0)
    posts.push(record)
    return record.status
  }

  const postSigned = (kind: "status" | "inbound", phoneNumberId: string, value: Record<string, unknown>) =>
    track((async () => {
      const number = numberOrThrow(phoneNumberId)
      const body = JSON.stringify(webhookEnvelope(number, value))
      return post(kind, body, signWhatsAppBody(number.appSecret, body))
    })())

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const rawBody = await readBody(req)
    const phoneNumberId = messagesPath.exec(req.url ?? "")?.[1] ?? ""
    const outcome = answerSend(numbers, { nextFailures, recipientFailures }, {
      method: req.method, url: req.url, authorization: req.headers.authorization, phoneNumberId, rawBody
    })
    let body: unknown = rawBody
    try {
      body = JSON.parse(rawBody)
    } catch { /* kept as text */ }
    calls.push({
      phoneNumberId, body, rawBody, headers: req.headers, at: Date.now(), answeredStatus: outcome.status,
      answer: outcome.body, ...(outcome.accepted === undefined ? {} : { wamid: outcome.accepted.wamid })
    })
    for (const waiter of waiters) waiter()
    if (answerDelayMs > 0) {
      const cut = await sleep(answerDelayMs, false, { signal: closing.signal }).catch(() => true)
      if (cut) return void res.destroy()
    }
    res.writeHead(outcome.status, { "content-type": "application/json; charset=UTF-8", ...outcome.headers })
      .end(JSON.stringify(outcome.body))
    const accepted = outcome.accepted
    if (accepted === undefined || webhookUrl === undefined) return
    const { check, failure, wamid } = accepted
    const statuses = statusSequence(failure === undefined ? autoStatuses : ["failed"], {
      wamid,
      recipientId: digitsOf(check.to),
      category: check.category,
      ...(check.callbackData === undefined ? {} : { bizOpaqueCallbackData: check.callbackData }),
      ...(failure === undefined ? {} : { errors: [failure] })
    }, order)
    for (const status of statuses) {
      if (webhookUrl === undefined) return
      await postSigned("status", phoneNumberId, { statuses: [status] })
    }
  }

  const server = createServer((req, res) => {
    void track(handle(req, res).catch(() => void res.destroy()))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port

  const settled = async () => {
    while (inflight.size > 0) await Promise.allSettled([...inflight])
  }

  return {
    baseUrl: `http://127.0.0.1:${port}/v21.0`,
    port,
    get calls() {
      return calls
    },
    get posts() {
      return posts
    },
    countByCallbackData: () => {
      const counts = new Map<string, number>()
      for (const call of calls) {
        const data = call.answeredStatus === 200 ? call.body?.biz_opaque_callback_data : undefined
        if (typeof data === "string") counts.set(data, (counts.get(data) ?? 0) + 1)
      }
      return counts
    },
    waitForCalls: (n, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (calls.length < n) return
          waiters.delete(check)
          clearTimeout(timer)
          resolve([...calls])
        }
        const timer = setTimeout(() => {
          waiters.delete(check)
          reject(new Error(`whatsappStub: ${calls.length} of ${n} calls after ${timeoutMs} ms`))
        }, timeoutMs)
        waiters.add(check)
        check()
      }),
    setWebhookUrl: (url) => {
      webhookUrl = url
    },
    setAutoStatuses: (statuses, newOrder) => {
      autoStatuses = statuses
      if (newOrder !== undefined) order = newOrder
    },
    failNext: (n, status, body, headers) => {
      const failure = {
        status,
        body: body ?? defaultFailure(status),
        headers: headers ?? (status === 429 ? { "retry-after": "1" } : {})
      }
      nextFailures.push(...Array.from({ length: n }, () => failure))
    },
    failRecipient: (to, code, title, failureOptions = {}) => {
      recipientFailures.set(digitsOf(to), { ...failureOptions, code, title })
    },
    delayMs: (ms) => {
      answerDelayMs = ms
    },
    postInbound: ({ phoneNumberId, ...input }) =>
      postSigned("inbound", phoneNumberId, inboundValue(input, input.id ?? newWamid())),
    postStatus: ({ phoneNumberId, ...input }) => postSigned("status", phoneNumberId, { statuses: [statusObject(input)] }),
    postStatuses: (phoneNumberId, statuses) => postSigned("status", phoneNumberId, { statuses: statuses.map(statusObject) }),
    postRaw: (body, signature) => track(post("raw", body, signature)),
    handshake: async (verifyToken, challenge = String(Date.now()), mode = "subscribe") => {
      if (webhookUrl === undefined) throw new Error("whatsappStub: no webhook URL set (setWebhookUrl)")
      const url = new URL(webhookUrl)
      url.search = new URLSearchParams({ "hub.mode": mode, "hub.verify_token": verifyToken, "hub.challenge": challenge }).toString()
      const response = await fetch(url, { signal: AbortSignal.timeout(10_000) })
      return { status: response.status, body: await response.text() }
    },
    pendingPosts: () => inflight.size,
    settled,
    clear: () => {
      calls = []
      posts = []
      nextFailures = []
      recipientFailures = new Map()
      answerDelayMs = 0
    },
    close: async () => {
      closing.abort()
      await settled()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}
