import { Packr } from "msgpackr"

// Plain maps (no record structures): envelopes must decode in any process regardless of what it saw before.
const packr = new Packr({ useRecords: false, moreTypes: false })

export const encode = (value: unknown): Uint8Array => packr.pack(value)
/** Untyped: a payload is read through its topic (topics.ts), which checks its shape. */
export const decode = (bytes: Uint8Array): unknown => packr.unpack(bytes)
