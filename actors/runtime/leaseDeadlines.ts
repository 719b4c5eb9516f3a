/**
 * Until when each lease this worker holds is surely still its own, by this process's clock: from just before the
 * statement that took or last renewed it, plus the TTL. The server counts the TTL from when it ran that statement,
 * which is later, so this deadline is never after the lease's real expiry. Past it another worker may take the
 * lease, so the partition's consumer must stop fetching whether or not the renewal in flight ever answers: a
 * database cut off mid-statement never answers, and a worker waiting on it would keep pulling envelopes from NATS
 * that only the next owner can apply.
 */
export class LeaseDeadlines<K> {
  private readonly until = new Map<K, number>()
  private readonly ttlMs: number

  constructor(ttlMs: number) {
    this.ttlMs = ttlMs
  }

  /** The lease was taken or renewed by a statement sent at `askedAt` (epoch ms). */
  held(key: K, askedAt: number): void {
    this.until.set(key, askedAt + this.ttlMs)
  }

  forget(key: K): void {
    this.until.delete(key)
  }

  /** The leases that may have lapsed by `now`: each is reported once, then forgotten. */
  lapsed(now: number): Array<K> {
    const out: Array<K> = []
    for (const [key, until] of this.until) {
      if (now < until) continue
      out.push(key)
      this.until.delete(key)
    }
    return out
  }
}
