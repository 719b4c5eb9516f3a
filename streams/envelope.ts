import { Packr } from "msgpackr"
import type { ReplyExit } from "./ActorProtocol.ts"

/**
 * The envelope format this release writes and the newest it reads. An envelope without `v` is of version 1 (releases
 * before the field). A worker meeting a newer one leaves it unacknowledged for a newer worker (PartitionConsumer),
 * never dead-letters it: during a rolling upgrade, the releases overlap (README, Operate it, Upgrades).
 */
export const ENVELOPE_VERSION = 1

/** The format version of an envelope (1 when it carries none). */
export const versionOf = (envelope: { readonly v?: number | undefined }): number => envelope.v ?? 1

/** What travels on an ingress subject: one message for one actor key, its payload encoded by the actor's protocol. */
export interface Envelope {
  /** The envelope's format version (ENVELOPE_VERSION of the release that wrote it; absent before the field). */
  readonly v?: number | undefined
  /** Unique per logical request; also the JetStream Nats-Msg-Id and the inbox key. */
  readonly id: string
  /** The actor type (its protocol's name). */
  readonly actor: string
  /** The message's tag in the actor's protocol. */
  readonly type: string
  readonly tenant_id: string
  readonly sandbox: boolean
  /** The actor key inside the tenant (e.g. the partner reservation id). */
  readonly key: string
  readonly payload: unknown
  /** Core NATS subject where the waiting ingress listens; absent for fire-and-forget commands. */
  readonly reply_to?: string | undefined
  readonly sent_at: number
}

/** The actor's answer to a synchronous request, sent after its transaction committed. */
export interface Reply {
  readonly envelope_id: string
  readonly exit: ReplyExit
}

// Plain maps (no record structures): envelopes must decode in any process regardless of what it saw before.
const packr = new Packr({ useRecords: false, moreTypes: false })

export const encode = (value: unknown): Uint8Array => packr.pack(value)
export const decode = <A>(bytes: Uint8Array): A => packr.unpack(bytes) as A
