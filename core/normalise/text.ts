/**
 * String helpers shared by the normalisers.
 */

/** Number of Unicode code points (not UTF-16 units) in `s`. */
export const codePointLength = (s: string): number => {
  let n = 0
  for (const _ of s) n++
  return n
}

/**
 * First `max` code points of `s`. Iterating a string yields whole code
 * points, so a surrogate pair is either kept whole or dropped whole.
 */
export const truncateCodePoints = (s: string, max: number): string => {
  // Fast path: a string of <= max UTF-16 units has <= max code points.
  if (s.length <= max) return s
  let out = ""
  let n = 0
  for (const cp of s) {
    if (n === max) break
    out += cp
    n++
  }
  return out
}
