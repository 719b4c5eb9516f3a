import type { ReplyExitSchema } from "./topics.ts"
import { Schema } from "effect"

/**
 * The typed contract of an actor type, declared once and shared by the ingress (which asks through a client built from
 * it) and the worker (which registers one handler per message). Modelled on `effect/cluster`'s `Entity.make` with
 * `Rpc.make` messages; the transport stays ours (JetStream partitions, leases, fencing).
 */

/** A schema usable without services on both sides of the wire. */
export type WireSchema = Schema.Top & { readonly DecodingServices: never; readonly EncodingServices: never }

/** One message an actor accepts: its payload, the value it answers with, and the domain errors it may answer. */
export interface ActorMessage<P extends WireSchema = WireSchema, S extends WireSchema = WireSchema, E extends WireSchema = WireSchema> {
  readonly payload: P
  readonly success: S
  readonly error: E
}

export function message<P extends WireSchema, S extends WireSchema>(spec: {
  readonly payload: P
  readonly success: S
}): ActorMessage<P, S, typeof Schema.Never>
export function message<P extends WireSchema, S extends WireSchema, E extends WireSchema>(spec: {
  readonly payload: P
  readonly success: S
  readonly error: E
}): ActorMessage<P, S, E>
export function message(spec: { readonly payload: WireSchema; readonly success: WireSchema; readonly error?: WireSchema }): ActorMessage {
  return { payload: spec.payload, success: spec.success, error: spec.error ?? Schema.Never }
}

export type Messages = Record<string, ActorMessage>
export type PayloadOf<M extends ActorMessage> = M["payload"]["Type"]
export type SuccessOf<M extends ActorMessage> = M["success"]["Type"]
export type ErrorOf<M extends ActorMessage> = M["error"]["Type"]

/** An actor type: its name (subjects, consumers, metrics labels), how a payload names its key, and its messages. */
export interface ActorProtocol<Name extends string = string, M extends Messages = Messages> {
  readonly name: Name
  readonly messages: M
  /** The actor key inside the tenant: every message of one key is applied in order, by one owner. */
  readonly key: (payload: PayloadOf<M[keyof M]>) => string
  /** Wire codecs, built once per message. */
  readonly codecs: { readonly [K in keyof M]: MessageCodec<M[K]> }
}

export interface MessageCodec<M extends ActorMessage> {
  readonly encodePayload: (payload: PayloadOf<M>) => unknown
  readonly decodePayload: (wire: unknown) => PayloadOf<M>
  readonly encodeSuccess: (value: SuccessOf<M>) => unknown
  readonly decodeSuccess: (wire: unknown) => SuccessOf<M>
  readonly encodeError: (error: ErrorOf<M>) => unknown
  readonly decodeError: (wire: unknown) => ErrorOf<M>
}

const codecOf = <M extends ActorMessage>(m: M): MessageCodec<M> => ({
  encodePayload: Schema.encodeSync(m.payload as never) as unknown as (p: PayloadOf<M>) => unknown,
  decodePayload: Schema.decodeUnknownSync(m.payload as never) as unknown as (w: unknown) => PayloadOf<M>,
  encodeSuccess: Schema.encodeSync(m.success as never) as unknown as (v: SuccessOf<M>) => unknown,
  decodeSuccess: Schema.decodeUnknownSync(m.success as never) as unknown as (w: unknown) => SuccessOf<M>,
  encodeError: Schema.encodeSync(m.error as never) as unknown as (e: ErrorOf<M>) => unknown,
  decodeError: Schema.decodeUnknownSync(m.error as never) as unknown as (w: unknown) => ErrorOf<M>
})

export const make = <const Name extends string, const M extends Messages>(
  name: Name,
  spec: { readonly key: (payload: PayloadOf<M[keyof M]>) => string; readonly messages: M }
): ActorProtocol<Name, M> => ({
  name,
  messages: spec.messages,
  key: spec.key,
  codecs: Object.fromEntries(Object.entries(spec.messages).map(([tag, m]) => [tag, codecOf(m)])) as unknown as ActorProtocol<Name, M>["codecs"]
})

/**
 * What an actor answered, as it travels back to the ingress and is kept in the inbox for redeliveries: the encoded
 * success value, the encoded domain error, a rejection (the envelope's data cannot be applied: dead-lettered at once)
 * or a defect (the envelope was dead-lettered after repeated failures).
 */
export type ReplyExit = typeof ReplyExitSchema.Type
