import { Schema } from "effect"
import type { WireSchema } from "../../streams/ActorProtocol.ts"

/** A family's refusal: a tagged error whose `code` says why a command was refused. */
type Refusal = WireSchema & { readonly Type: { readonly code: string } }

/**
 * The error schemas of messages that refuse only with some of the family's codes: `refusedWith(codes)` is the family's
 * refusal on the wire, its code narrowed in the type (a handler refusing with another code does not compile, a caller
 * sees which codes it must render) and checked when the answer is encoded and decoded.
 */
export const refusalsOf = <S extends Refusal>(refusal: S) => <const C extends S["Type"]["code"]>(codes: ReadonlyArray<C>) =>
  refusal.pipe(Schema.refine((e): e is S["Type"] & { readonly code: C } => (codes as ReadonlyArray<string>).includes(e.code), { expected: codes.join(" | ") }))
