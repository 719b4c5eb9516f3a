import type { Sql, Tx } from "../db/Database.ts"

/** PostgreSQL's type OID of bytea. */
const BYTEA = 17

/**
 * Keyed hashes as one `bytea[]` parameter (`id_hash = ANY(${hashesParameter(tx, hashes)})`): postgres.js sends an
 * array of buffers as one bytea unless it is told the element type.
 */
export const hashesParameter = (sql: Sql | Tx, hashes: ReadonlyArray<Buffer>) => sql.array([...hashes], BYTEA)
