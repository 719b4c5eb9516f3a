import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import { credentialHash, randomCredential } from "../credentials.ts"

// The three credentials of a website source and the webhook signature, without services.

export type KeyKind = "server" | "browser" | "webhook"
export const KEY_KINDS: ReadonlyArray<KeyKind> = ["server", "browser", "webhook"]
export const PREFIX: Readonly<Record<KeyKind, string>> = { server: "svc_sk_", browser: "svc_pk_", webhook: "svc_wh_" }
/** Live keys a source may hold per kind (spec: two live keys). */
export const MAX_LIVE_KEYS = 2

/** A new credential: its prefix and 32 random bytes as base62 (about 190 bits), stored only as its SHA-256. */
export const generateWebKey = (kind: KeyKind): string => randomCredential(PREFIX[kind])

export const kindOf = (key: string): KeyKind | undefined =>
  /^svc_sk_[0-9A-Za-z]{20,100}$/.test(key) ? "server"
  : /^svc_pk_[0-9A-Za-z]{20,100}$/.test(key) ? "browser"
  : /^svc_wh_[0-9A-Za-z]{20,100}$/.test(key) ? "webhook"
  : undefined

export const hashWebKey = credentialHash

/** What an operator may see of a key: its prefix and four characters. */
export const keyPrefix = (key: string) => key.slice(0, 11)

/** A signing secret: `whsec_` + 32 random bytes in base64url. */
export const generateWebSigningSecret = (): string => `whsec_${randomBytes(32).toString("base64url")}`

export const SIGNATURE_TOLERANCE_S = 300

export type SignatureVerdict = "ok" | "signature_missing" | "signature_invalid" | "signature_expired"

/** `t=<unix seconds>,v1=<hex>[,v1=<hex>...]`: the time and every v1 (several while a secret rotates). */
export const parseSignature = (header: string): { t: number; v1: Array<string> } | undefined => {
  let t: number | undefined
  const v1: Array<string> = []
  for (const part of header.split(",")) {
    const eq = part.indexOf("=")
    if (eq < 0) continue
    const k = part.slice(0, eq).trim()
    const v = part.slice(eq + 1).trim()
    if (k === "t" && /^\d{1,12}$/.test(v)) t = Number(v)
    else if (k === "v1" && /^[0-9a-fA-F]{64}$/.test(v)) v1.push(v.toLowerCase())
  }
  return t === undefined || v1.length === 0 ? undefined : { t, v1 }
}

export const signPayload = (secret: string, t: number, raw: Uint8Array): string =>
  createHmac("sha256", secret).update(`${t}.`).update(raw).digest("hex")

/**
 * The verdict on `X-SVC-Signature` over `'<t>.<raw body>'`: any sent v1 matching any live secret passes (constant-time
 * compares); `t` must be within 5 minutes of now, either way.
 */
export const verifySignature = (
  header: string | undefined,
  raw: Uint8Array,
  secrets: ReadonlyArray<string>,
  nowS: number
): SignatureVerdict => {
  if (header === undefined || header.trim() === "") return "signature_missing"
  const parsed = parseSignature(header)
  if (parsed === undefined) return "signature_invalid"
  if (Math.abs(nowS - parsed.t) > SIGNATURE_TOLERANCE_S) return "signature_expired"
  for (const secret of secrets) {
    const expected = Buffer.from(signPayload(secret, parsed.t, raw), "hex")
    for (const v of parsed.v1) {
      const given = Buffer.from(v, "hex")
      if (given.length === expected.length && timingSafeEqual(given, expected)) return "ok"
    }
  }
  return "signature_invalid"
}

/** An origin as browsers send it: scheme://host[:port], lower case, default port dropped; undefined when not one. */
export const normaliseOrigin = (raw: string): string | undefined => {
  try {
    const u = new URL(raw)
    if (!/^[a-z0-9.-]+$|^\[[0-9a-f:.]+\]$/i.test(u.hostname)) return undefined
    if ((u.protocol !== "https:" && u.protocol !== "http:") || u.pathname !== "/" || u.search !== "" || u.hash !== "" || u.username !== "") return undefined
    if (raw.replace(/\/$/, "").toLowerCase() !== u.origin.toLowerCase() && raw.toLowerCase() !== `${u.origin}/`.toLowerCase()) {
      // A default port written out (https://a.com:443) is the same origin without it.
      if (!/:\d+\/?$/.test(raw)) return undefined
    }
    return u.origin.toLowerCase()
  } catch {
    return undefined
  }
}
