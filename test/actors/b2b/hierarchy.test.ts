import { describe, expect, it } from "vitest"
import fc from "fast-check"
import { placeUnder, rebase, type TreeNode } from "../../../actors/b2b/hierarchy.ts"

/** A forest as parent links (index → parent index or null), built so every node's parent comes before it. */
const forest = fc.array(fc.nat(), { minLength: 1, maxLength: 12 }).map((picks) => {
  const parents: Array<number | null> = []
  const depth: Array<number> = []
  picks.forEach((p, i) => {
    const candidates = [...Array(i).keys()].filter((j) => depth[j]! < 3)
    const parent = p % (candidates.length + 1) === 0 ? null : candidates[p % (candidates.length + 1) - 1]!
    parents.push(parent)
    depth.push(parent === null ? 1 : depth[parent]! + 1)
  })
  return parents
})

const pathOf = (parents: ReadonlyArray<number | null>, i: number): Array<string> =>
  parents[i] === null ? [`n${i}`] : [...pathOf(parents, parents[i]!), `n${i}`]

const heightOf = (parents: ReadonlyArray<number | null>, i: number): number =>
  1 + Math.max(0, ...parents.flatMap((p, j) => (p === i ? [heightOf(parents, j)] : [])))

describe("placeUnder", () => {
  it("nests up to three levels and refuses a fourth", () => {
    const root: TreeNode = { id: "r", path: ["r"] }
    const mid = placeUnder("m", root, 1)
    expect(mid).toEqual({ ok: true, path: ["r", "m"], depth: 2 })
    expect(placeUnder("l", { id: "m", path: ["r", "m"] }, 1)).toEqual({ ok: true, path: ["r", "m", "l"], depth: 3 })
    expect(placeUnder("x", { id: "l", path: ["r", "m", "l"] }, 1)).toMatchObject({ ok: false, code: "HIERARCHY_TOO_DEEP" })
    expect(placeUnder("r", null, 3)).toEqual({ ok: true, path: ["r"], depth: 1 })
  })

  it("refuses the account itself or a descendant as its parent", () => {
    expect(placeUnder("a", { id: "a", path: ["a"] }, 1)).toMatchObject({ ok: false, code: "HIERARCHY_CYCLE" })
    expect(placeUnder("a", { id: "c", path: ["a", "b", "c"] }, 3)).toMatchObject({ ok: false, code: "HIERARCHY_CYCLE" })
  })

  it("accepts a move exactly when the resulting forest has no cycle and no account below level three", () => {
    fc.assert(fc.property(forest, fc.nat(), fc.nat(), (parents, a, b) => {
      const moved = a % parents.length
      const target = b % (parents.length + 1) === parents.length ? null : b % (parents.length + 1)
      const placement = placeUnder(`n${moved}`, target === null ? null : { id: `n${target}`, path: pathOf(parents, target) }, heightOf(parents, moved))
      // The move applied naively: would it make a cycle, or a path longer than 3?
      const next = parents.map((p, i) => (i === moved ? target : p))
      const walk = (i: number, seen: Set<number>): number | "cycle" => {
        if (seen.has(i)) return "cycle"
        const p = next[i]
        return p === null ? 1 : ((d) => (d === "cycle" ? d : d + 1))(walk(p!, new Set([...seen, i])))
      }
      const depths = next.map((_, i) => walk(i, new Set()))
      const valid = depths.every((d) => d !== "cycle" && d <= 3)
      expect(placement.ok).toBe(valid)
      if (placement.ok) {
        expect(placement.depth).toBe(depths[moved])
        // Every descendant rebased onto the new path lands at its depth in the moved forest.
        const oldPath = pathOf(parents, moved)
        parents.forEach((_, i) => {
          const path = pathOf(parents, i)
          if (path.includes(`n${moved}`)) expect(rebase(oldPath, placement.path, path).length).toBe(depths[i])
        })
      }
    }), { numRuns: 500 })
  })
})
