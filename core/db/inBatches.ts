/**
 * Runs a bounded delete (`remove`, at most `batch` rows a statement) until one comes back short, so no statement
 * holds locks on more than `batch` rows; returns the rows removed in all.
 */
export const inBatches = async (batch: number, remove: () => Promise<{ count: number }>): Promise<number> => {
  let total = 0
  for (;;) {
    const { count } = await remove()
    total += count
    if (count < batch) return total
  }
}
