// The browser SDK's sending rules, pure (bundled into svc-events.js, property-tested in test/sdk/policy.test.ts).

/** Events per request and waiting at most (spec: 50 per request; at most 50 events wait). */
export const MAX_EVENTS = 50
/** Bytes per request: under Chromium's 64 KB budget for keepalive requests and beacons in flight. */
export const MAX_BYTES = 60_000
/** Attempts of one batch in all: the first and four retries after 1, 2, 4, 8 s. */
export const ATTEMPTS = 5
export const MAX_RETRY_AFTER_MS = 60_000

/** A network error (status 0), 429 or 5xx is worth another attempt; any other answer is final. */
export const retryable = (status: number) => status === 0 || status === 429 || status >= 500

/** Retry-After as delta-seconds or an HTTP date, in ms from `now`, between 0 and 60 s; undefined when absent or unreadable. */
export const retryAfterMs = (header: string | null, now: number): number | undefined => {
  if (!header) return undefined
  const h = header.trim()
  const ms = /^\d+$/.test(h) ? Number(h) * 1000 : Date.parse(h) - now
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS) : undefined
}

/** The wait after `failed` failed attempts of a batch, or undefined when no attempt is left. */
export const retryDelay = (failed: number, header: string | null, now: number): number | undefined =>
  failed >= ATTEMPTS ? undefined : retryAfterMs(header, now) ?? 1000 * 2 ** (failed - 1)

/** How many events from the head of the queue one request carries: 1 to 50, at most 60 KB unless the first alone is larger. */
export const fitting = (sizes: ReadonlyArray<number>): number => {
  let n = 0
  let total = 12 // {"events":[]}
  while (n < sizes.length && n < MAX_EVENTS) {
    total += sizes[n]! + 1
    if (n > 0 && total > MAX_BYTES) break
    n++
  }
  return n
}

/** The queue with the oldest dropped beyond 50. */
export const capped = <A>(queue: Array<A>): Array<A> => queue.length > MAX_EVENTS ? queue.slice(queue.length - MAX_EVENTS) : queue
