import { Packr } from "msgpackr"
import type { ActorType } from "./subjects.ts"

/** What travels on an ingress subject: one command for one actor key. */
export interface Envelope<P = unknown> {
  /** Unique per logical request; also the JetStream Nats-Msg-Id and the inbox key. */
  readonly id: string
  readonly actor: ActorType
  readonly type: string
  readonly tenant_id: string
  readonly sandbox: boolean
  /** The actor key inside the tenant (e.g. the partner reservation id). */
  readonly key: string
  readonly payload: P
  /** Core NATS subject where the waiting ingress listens; absent for fire-and-forget commands. */
  readonly reply_to?: string | undefined
  readonly sent_at: number
}

/** The actor's answer to a synchronous request: the HTTP status and body the ingress returns as is. */
export interface Reply {
  readonly envelope_id: string
  readonly status: number
  readonly body: unknown
}

// Plain maps (no record structures): envelopes must decode in any process regardless of what it saw before.
const packr = new Packr({ useRecords: false, moreTypes: false })

export const encode = (value: unknown): Uint8Array => packr.pack(value)
export const decode = <A>(bytes: Uint8Array): A => packr.unpack(bytes) as A
