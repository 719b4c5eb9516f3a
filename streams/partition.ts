/**
 * partition = FNV-1a-32(tenant \0 key) mod P. Every publisher must use this one function: all messages of a key
 * land on one partition and are consumed in order. FNV-1a is cheap, stable across processes and well spread.
 */
export const partitionOf = (tenantId: string, key: string, partitions: number): number => {
  let h = 0x811c9dc5
  const s = `${tenantId}\u0000${key}`
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return (h >>> 0) % partitions
}
