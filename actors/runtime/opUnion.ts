import { Effect, Schema } from "effect"
import * as ActorProtocol from "../../streams/ActorProtocol.ts"
import type { Handler } from "./Actor.ts"

// The bridge of a rolling upgrade from an actor's one op-union message (its payload a union of commands told apart by
// an `op` field, its success a union of results told apart by theirs) to one message per command: the old message is
// derived from the new ones, and its handler strips the command's `op`, runs the new message's handler and puts the
// result's `op` back. Kept while old ingresses and old outbox rows may still send the old message.

/** How a message was spelled inside the op-union: its command's `op` and its result's `op`. */
export interface OpNames {
  readonly command: string
  readonly result: string
}

type StructSchema = ActorProtocol.WireSchema & { readonly fields: Schema.Struct.Fields }
type StructMessage = ActorProtocol.ActorMessage<StructSchema, StructSchema>

type Tags<O> = keyof O & string

/** The op-union's command: any message's payload with its `op`. */
export type OpCommand<M extends Record<string, StructMessage>, O extends Record<Tags<M>, OpNames>> = {
  [K in Tags<O>]: { readonly op: O[K]["command"] } & ActorProtocol.PayloadOf<M[K]>
}[Tags<O>]

/** The op-union's result: any message's success with its `op`. */
export type OpResult<M extends Record<string, StructMessage>, O extends Record<Tags<M>, OpNames>> = {
  [K in Tags<O>]: { readonly op: O[K]["result"] } & ActorProtocol.SuccessOf<M[K]>
}[Tags<O>]

type Wire<T> = Schema.Codec<T, unknown>

const withOp = (op: string, struct: StructSchema) => Schema.Struct({ op: Schema.Literal(op), ...struct.fields })

/**
 * The op-union message of `messages` (each named in `ops`): its payload and success are the messages' own, each with
 * its `op` literal first, so the wire form is the old one; `error` covers every message's error.
 */
export const opUnionMessage = <M extends Record<string, StructMessage>, const O extends Record<Tags<M>, OpNames>, E extends ActorProtocol.WireSchema>(
  messages: M, ops: O, error: E
): ActorProtocol.ActorMessage<Wire<OpCommand<M, O>>, Wire<OpResult<M, O>>, E> => {
  const tags = Object.keys(ops) as Array<Tags<O>>
  return ActorProtocol.message({
    // Built from a list, so typed by hand: a union member per message, which `op` tells apart.
    payload: Schema.Union(tags.map((tag) => withOp(ops[tag].command, messages[tag]!.payload))) as unknown as Wire<OpCommand<M, O>>,
    success: Schema.Union(tags.map((tag) => withOp(ops[tag].result, messages[tag]!.success))) as unknown as Wire<OpResult<M, O>>,
    error
  })
}

/**
 * The op-union message's handler (`L`: that message): the command without its `op` to its own message's handler, the
 * result with its `op`. Each handler is typed by its own message already; this one only moves the `op`.
 */
export const opUnionHandler = <L extends ActorProtocol.ActorMessage>(
  ops: { readonly [tag: string]: OpNames },
  handlers: { readonly [tag: string]: Handler<any> }
): Handler<L> => {
  const byOp = new Map(Object.entries(ops).map(([tag, names]) => [names.command, { handler: handlers[tag]!, result: names.result }]))
  return (command) => {
    const { op, ...payload } = command as { readonly op: string }
    const target = byOp.get(op)!
    return Effect.map(target.handler(payload), (value) => ({ op: target.result, ...value }))
  }
}
