import { MAX_DEPTH } from "../../schemas/b2b.ts"

/** An account's place in its tree: the ids from the root down to itself. */
export interface TreeNode {
  readonly id: string
  readonly path: ReadonlyArray<string>
}

export type Placement =
  | { readonly ok: true; readonly path: ReadonlyArray<string>; readonly depth: number }
  | { readonly ok: false; readonly code: "HIERARCHY_CYCLE" | "HIERARCHY_TOO_DEEP"; readonly message: string }

/**
 * Where an account (with `height` levels of its own: 1 for a leaf) lands under `parent` (null: as a root). Refused
 * when the parent is the account itself or one of its descendants (a cycle), or when the deepest account of the moved
 * subtree would sit below level three.
 */
export const placeUnder = (accountId: string, parent: TreeNode | null, height: number): Placement => {
  if (parent !== null && parent.path.includes(accountId)) {
    return {
      ok: false,
      code: "HIERARCHY_CYCLE",
      message: parent.id === accountId ? "An account cannot be its own parent" : "The parent is a descendant of this account"
    }
  }
  const depth = (parent?.path.length ?? 0) + 1
  if (depth + height - 1 > MAX_DEPTH) {
    return {
      ok: false,
      code: "HIERARCHY_TOO_DEEP",
      message: height > 1
        ? `The account's subtree (${height} levels) would reach below level ${MAX_DEPTH} under this parent`
        : `Accounts nest at most ${MAX_DEPTH} levels deep; the parent is already at level ${MAX_DEPTH}`
    }
  }
  return { ok: true, path: [...(parent?.path ?? []), accountId], depth }
}

/** A descendant's path after its ancestor moved from `oldPath` to `newPath`. */
export const rebase = (oldPath: ReadonlyArray<string>, newPath: ReadonlyArray<string>, descendant: ReadonlyArray<string>): Array<string> =>
  [...newPath, ...descendant.slice(oldPath.length)]
