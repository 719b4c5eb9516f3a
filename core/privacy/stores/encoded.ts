import { Packr } from "msgpackr"

// Copies kept encoded with msgpack (outbox rows, inbox answers, dead letters). Read here with the codec the transport
// writes them with (streams/msgpack.ts: plain maps, no records); core cannot import the transport, so the two lines of
// configuration are repeated, and a batch row's shape (an array of { id, subject, data }) with them.

const packr = new Packr({ useRecords: false, moreTypes: false })

const walk = (value: unknown, out: Array<string>, depth: number): void => {
  if (depth > 20) return
  if (typeof value === "string") out.push(value)
  else if (value instanceof Uint8Array) out.push(textOf(value, depth + 1))
  else if (Array.isArray(value)) for (const v of value) walk(v, out, depth + 1)
  else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      out.push(k)
      walk(v, out, depth + 1)
    }
  }
}

/**
 * Every string an encoded value holds, nested encoded values (a batch row's messages) decoded too, and the bytes read
 * as UTF-8 besides (what does not decode is still searched as text).
 */
export const textOf = (bytes: Uint8Array, depth = 0): string => {
  const raw = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8")
  const out: Array<string> = [raw]
  try {
    walk(packr.unpack(bytes), out, depth)
  } catch {
    // not msgpack: the raw text above is all there is
  }
  return out.join("\n")
}

export interface StoredMessage {
  readonly id: string
  readonly subject: string
  readonly data: Uint8Array
}

/** A batch row's messages, or undefined when the bytes are no batch. */
export const readBatch = (bytes: Uint8Array): Array<StoredMessage> | undefined => {
  try {
    const value = packr.unpack(bytes) as unknown
    if (!Array.isArray(value)) return undefined
    const ok = value.every((m) => m !== null && typeof m === "object" && typeof m.id === "string" && typeof m.subject === "string" && m.data instanceof Uint8Array)
    return ok ? value as Array<StoredMessage> : undefined
  } catch {
    return undefined
  }
}

export const writeBatch = (messages: ReadonlyArray<StoredMessage>): Buffer => Buffer.from(packr.pack(messages))

/** An inbox answer that says the envelope was applied and its answer erased (streams/topics.ts ReplyExitSchema). */
export const erasedAnswer = (): Buffer => Buffer.from(packr.pack({ _tag: "Rejected", message: "erased by a privacy request" }))
