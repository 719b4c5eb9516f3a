/**
 * Rendezvous (highest-random-weight) hashing: each partition goes to the live worker with the highest score for it.
 * Every worker computes the same answer from the same membership, and a worker joining or leaving moves only the
 * partitions it wins or held (about 1/N of them).
 */
const score = (workerId: string, slot: string): number => {
  let h = 0x811c9dc5
  const s = `${workerId}\u0000${slot}`
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  // One extra avalanche round (murmur3 finaliser) so near-identical ids spread well.
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h >>> 0
}

export const ownerOf = (slot: string, workers: ReadonlyArray<string>): string | undefined => {
  let best: string | undefined
  let bestScore = -1
  for (const w of workers) {
    const s = score(w, slot)
    if (s > bestScore || (s === bestScore && best !== undefined && w < best)) {
      best = w
      bestScore = s
    }
  }
  return best
}

export const slotOf = (actor: string, partition: number) => `${actor}/${partition}`
