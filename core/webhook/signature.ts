import { createHmac } from "node:crypto"

/** `sha256=` + hex HMAC-SHA256 of `timestamp + "." + body`, keyed with the secret string exactly as shown to the partner. */
export const signatureOf = (secret: string, timestamp: string, body: string | Buffer): string =>
  "sha256=" + createHmac("sha256", secret).update(`${timestamp}.`).update(body).digest("hex")

/**
 * The X-Webhook-Signature value: one `sha256=<hex>` per valid secret, space-separated, newest first (during the 24 h
 * after a rotation the previous secret signs too, so a receiver still holding it keeps verifying).
 */
export const signatureHeader = (secrets: ReadonlyArray<string>, timestamp: string, body: string | Buffer): string =>
  secrets.map((s) => signatureOf(s, timestamp, body)).join(" ")
