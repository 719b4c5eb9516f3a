import { Effect } from "effect"
import type { TenantScope } from "../../core/TenantScope.ts"
import { MAX_DEPTH } from "../../schemas/b2b.ts"
import * as Actor from "../runtime/Actor.ts"
import * as Repo from "./accountRepository.ts"
import { placeUnder } from "./hierarchy.ts"
import { B2bRefused, type RefusalCode, type Refused } from "./refusalProtocol.ts"
import type { AccountWritten, CodeRow, CreateAccount, UpdateAccount } from "./writeProtocol.ts"

// Account writes of the b2b actor. Every check runs before the first write, so a refused command stores nothing. The
// writes are awaited one by one: B2B writes are rare, and their order matters (an account before its codes).

/** Refuses a write, typed by its code. */
export const refuse = <C extends RefusalCode>(code: C, message: string, details: Record<string, unknown>) =>
  Effect.fail(new B2bRefused({ code, message, details }) as Refused<C>)

/** The account, or ACCOUNT_NOT_FOUND naming `field`. */
export const accountOrRefuse = Effect.fn("B2bActor.account")(function*(id: string, field: string) {
  const { scope } = yield* Effect.service(Actor.GroupTransaction)
  const account = yield* Actor.query((tx) => Repo.findAccount(tx, scope, id))
  if (account === undefined) {
    return yield* refuse("ACCOUNT_NOT_FOUND", `No B2B account with id ${JSON.stringify(id)}`, { [field]: ["no such account"] })
  }
  return account
})

/** CODE_TAKEN when another account of the tenant and mode already holds one of these codes (at the same hotel). */
export const checkCodesFree = Effect.fn("B2bActor.checkCodesFree")(function*(scope: TenantScope, accountId: string, codes: ReadonlyArray<CodeRow>) {
  const taken = yield* Actor.query((tx) => Repo.firstCodeConflict(tx, scope, accountId, codes))
  if (taken === undefined) return
  const field = codes[taken.index]!.field
  return yield* refuse("CODE_TAKEN", `The ${taken.kind.replace("_", " ")} ${JSON.stringify(taken.display)} is registered to another account`, {
    [field]: [`is registered to account ${taken.account_id}`],
    kind: taken.kind,
    code: taken.display,
    account_id: taken.account_id
  })
})

const parentOrRefuse = Effect.fn("B2bActor.parent")(function*(scope: TenantScope, parentId: string) {
  const parent = yield* Actor.query((tx) => Repo.findAccount(tx, scope, parentId))
  if (parent === undefined) {
    return yield* refuse("PARENT_NOT_FOUND", `No B2B account with id ${JSON.stringify(parentId)} to be the parent`, { parent_id: ["no such account"] })
  }
  return parent
})

const hierarchyRefusal = (code: "HIERARCHY_CYCLE" | "HIERARCHY_TOO_DEEP", message: string) =>
  refuse(code, message, { parent_id: [message], max_depth: MAX_DEPTH })

export const createAccount = Effect.fn("B2bActor.createAccount")(function*(cmd: CreateAccount) {
  const { scope } = yield* Effect.service(Actor.GroupTransaction)
  const parent = cmd.parent_id === null ? null : yield* parentOrRefuse(scope, cmd.parent_id)
  const placed = placeUnder(cmd.account_id, parent, 1)
  if (!placed.ok) return yield* hierarchyRefusal(placed.code, placed.message)
  yield* checkCodesFree(scope, cmd.account_id, cmd.codes)
  yield* Actor.query(async (tx) => {
    await Repo.insertAccount(tx, scope, cmd, placed.path)
    await Repo.insertCodes(tx, scope, cmd.account_id, cmd.codes, null)
  })
  return { account_id: cmd.account_id, depth: placed.depth, path: placed.path } satisfies AccountWritten
})

/** A merge patch: columns sent, code kinds replaced, and a move of the account's subtree when the parent changes. */
export const updateAccount = Effect.fn("B2bActor.updateAccount")(function*(cmd: UpdateAccount) {
  const { scope } = yield* Effect.service(Actor.GroupTransaction)
  const account = yield* accountOrRefuse(cmd.account_id, "id")
  let path = account.path
  let move: { readonly parentId: string | null; readonly parentPath: ReadonlyArray<string> } | undefined
  if (cmd.parent_id !== undefined && cmd.parent_id !== account.parent_id) {
    const parent = cmd.parent_id === null ? null : yield* parentOrRefuse(scope, cmd.parent_id)
    const height = yield* Actor.query((tx) => Repo.subtreeHeight(tx, scope, account))
    const placed = placeUnder(account.id, parent, height)
    if (!placed.ok) return yield* hierarchyRefusal(placed.code, placed.message)
    path = placed.path
    move = { parentId: cmd.parent_id, parentPath: parent?.path ?? [] }
  }
  yield* checkCodesFree(scope, account.id, cmd.codes)
  yield* Actor.query(async (tx) => {
    await Repo.updateAccount(tx, scope, account.id, cmd.set)
    if (move) await Repo.moveSubtree(tx, scope, account, move.parentId, move.parentPath)
    await Repo.replaceCodes(tx, scope, account.id, cmd.replace_code_kinds, cmd.codes)
  })
  return { account_id: account.id, depth: path.length, path } satisfies AccountWritten
})
