import { createHash } from "node:crypto"
import type { TenantScope } from "../TenantScope.ts"

/** The namespace of loyalty member ids (a fixed random UUID). */
const NAMESPACE = Buffer.from("6f1c2d8e4b7a4c31a9e05d3f8b2c7e19", "hex")

/**
 * A new member's id: UUIDv5 of tenant, mode and normalised email (RFC 9562 §5.5). Two concurrent enrolments of one
 * new email therefore name the same member and reach the same actor, which applies them one after the other.
 */
export const memberIdFor = (scope: TenantScope, email: string): string => {
  const hash = createHash("sha1").update(NAMESPACE).update(`${scope.tenant_id}:${scope.sandbox ? "sandbox" : "live"}:${email}`).digest()
  hash[6] = (hash[6]! & 0x0f) | 0x50
  hash[8] = (hash[8]! & 0x3f) | 0x80
  const h = hash.subarray(0, 16).toString("hex")
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`
}
