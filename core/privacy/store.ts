import type { Tx } from "../db/Database.ts"
import type { TenantScope } from "../TenantScope.ts"
import type { Identifier } from "./identifier.ts"

/** A data subject as the runner works on it: the contacts it resolved to and every identifier they are reached by. */
export interface Subject {
  readonly scope: TenantScope
  readonly contactIds: ReadonlyArray<string>
  /** Normalised phones and emails: the request's own and every resolved contact's. */
  readonly identifiers: ReadonlyArray<Identifier>
  /**
   * The keyed hashes of those identifiers (PrivacyKey.hash), when the caller has them: they find earlier requests on the
   * same person (their export documents) when no contact id links them (a subject known only by a loyalty email).
   */
  readonly hashes?: ReadonlyArray<Uint8Array>
}

export type EraseAction = "deleted" | "anonymised"

/**
 * One store of personal data (a table, or a group of tables erased together) and what a privacy request does to it.
 * `erase` removes at most `limit` rows naming the subject and says how many: the runner calls it, each call its own
 * transaction of the tenant, until a call removes fewer than `limit` (resumable: a crash repeats at most one batch,
 * which finds nothing left). `export` reads what the store holds on the subject, for the subject's document.
 */
export interface PrivacyStore {
  readonly store: string
  readonly action: EraseAction
  /** Every table the store reads and erases (the guard test holds the schema to this list). */
  readonly tables: ReadonlyArray<string>
  /** What personal data it holds, in a few words (the README's retention table). */
  readonly holds: string
  /** What keeps it bounded today, without any request (the README's retention table). */
  readonly retention: string
  readonly erase: (tx: Tx, subject: Subject, limit: number) => Promise<number>
  readonly export: (tx: Tx, subject: Subject) => Promise<ReadonlyArray<unknown>>
}
