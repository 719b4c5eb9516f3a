import { setTimeout as sleep } from "node:timers/promises"
import { statusObject, type StatusInput, type StatusName } from "./whatsappWire.ts"

// The stub's side that posts webhooks to the platform (whatsappStub.ts): delivery with Meta-like retries, and the
// order the automatic statuses of one send are posted in.

export type StatusOrder = "in_order" | "reversed" | "shuffled"

export interface StubPost {
  readonly kind: "status" | "inbound" | "raw"
  readonly body: string
  readonly signature: string | undefined
  /** The platform's HTTP status of the last attempt; 0 when it could not be reached. */
  readonly status: number
  readonly attempts: number
  readonly at: number
}

/** POSTs one webhook body; re-posts up to `retries` times (100 ms, 200 ms, …) while the answer is not 2xx. */
export const deliverWebhook = async (
  url: string,
  kind: StubPost["kind"],
  body: string,
  signature: string | undefined,
  retries: number
): Promise<StubPost> => {
  let status = 0
  let attempts = 0
  while (attempts <= retries) {
    if (attempts > 0) await sleep(100 * attempts)
    attempts++
    status = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "user-agent": "facebookexternalua",
        ...(signature === undefined ? {} : { "x-hub-signature-256": signature })
      },
      body,
      signal: AbortSignal.timeout(10_000)
    }).then(async (r) => (await r.arrayBuffer(), r.status), () => 0)
    if (status >= 200 && status < 300) break
  }
  return { kind, body, signature, status, attempts, at: Date.now() }
}

const arrange = <A>(items: ReadonlyArray<A>, order: StatusOrder): Array<A> => {
  if (order === "in_order") return [...items]
  if (order === "reversed") return [...items].reverse()
  const shuffled = [...items]
  for (let i = shuffled.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1))
    ;[shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!]
  }
  return shuffled
}

/**
 * The status objects of one send, in posting order. Timestamps follow the event order given (one second apart), so
 * a reversed or shuffled arrival still carries the true event times, as Meta's out-of-order deliveries do.
 */
export const statusSequence = (
  statuses: ReadonlyArray<StatusName>,
  input: Omit<StatusInput, "status" | "timestamp">,
  order: StatusOrder,
  now: number = Date.now()
) => {
  const base = Math.floor(now / 1000)
  return arrange(statuses.map((status, i) => statusObject({ ...input, status, timestamp: String(base + i) })), order)
}
