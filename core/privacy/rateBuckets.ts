import { createHash } from "node:crypto"

/**
 * The rate-limit bucket of sign-in codes per address. Buckets are shared through `rate_counters`, and each ingress
 * writes back every bucket it used in the last two minutes (src/auth/RateLimiter.ts): a bucket named after the plain
 * address would put it back into the database after an erasure removed it. Named by the address's digest, the table
 * holds no address at all; the limiter only needs a stable key.
 */
export const signInEmailBucket = (tenantId: string, email: string): string =>
  `oidc-email:${tenantId}:${createHash("sha256").update(email, "utf8").digest("hex")}`
