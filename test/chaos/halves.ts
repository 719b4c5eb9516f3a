/**
 * The families' own fault tests, in two halves of about equal time (measured on the 2-core machine: 289 s and 276 s
 * of files). `npm test` runs the runtime's (workers, PostgreSQL, NATS, the rolling upgrade and the timed ones) every
 * time and one half of these, by the UTC day's parity, so that every family's faults run in CI every other day and
 * `npm test` stays under its 25 minutes (all of them made it about 26.5). `npm run test:chaos` (full size) and
 * CHAOS_ALL=1 run both halves. The halves are not a judgement of importance: each family's test proves its own path
 * (a provider call, an erasure, a bid) under the same kills the runtime's tests prove the envelopes under.
 */
export const FAMILY_HALVES = [
  ["messages", "journeys", "loyaltyAuction", "cdp", "website"],
  ["privacy", "loyalty", "loyaltyZombie", "broadcasts"]
].map((half) => half.map((name) => `test/chaos/${name}.chaos.ts`))
