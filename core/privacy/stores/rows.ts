import type postgres from "postgres"

// Shared pieces of the stores: a batch over several statements, and rows read for an export.

/**
 * Runs a store's statements in order within one batch of `limit` rows: each statement gets what is left of the batch,
 * and the batch ends at the first statement that used all it was given. A return below `limit` therefore means every
 * statement found less than it could take, i.e. the store holds nothing more on the subject. Parents come after their
 * children, so a statement never meets a row a later statement of the same store still points at.
 */
export const inSteps = async (limit: number, steps: ReadonlyArray<(budget: number) => Promise<number>>): Promise<number> => {
  let done = 0
  for (const step of steps) {
    const budget = limit - done
    const n = await step(budget)
    done += n
    if (n >= budget) return limit
  }
  return done
}

/** The affected row count of a statement. */
export const counted = async (statement: PromiseLike<postgres.RowList<postgres.Row[]>>): Promise<number> => (await statement).count

/** Columns an export leaves out of every row: the scope (the document names it once) and bookkeeping. */
export const INTERNAL = ["tenant_id", "sandbox", "namespace", "version", "owner", "epoch"]

/** Export rows read as `SELECT <jsonb> AS row`, tagged with their table. */
export const tagged = (table: string, rows: ReadonlyArray<postgres.Row>): Array<Record<string, unknown>> =>
  rows.map((r) => ({ table, ...(r.row as Record<string, unknown>) }))
