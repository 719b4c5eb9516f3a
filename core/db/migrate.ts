import { readdir, readFile } from "node:fs/promises"
import { fileURLToPath } from "node:url"
import postgres from "postgres"
import { log } from "../observability/log.ts"

const MIGRATIONS_DIR = fileURLToPath(new URL("../../infra/migrations/", import.meta.url))
// Any constant works; it only has to be the same in every process that migrates.
const MIGRATION_LOCK = 724_113_901

/** Creates the database named in the URL when it does not exist yet (connecting to the `postgres` maintenance db). */
export const ensureDatabase = async (url: string): Promise<void> => {
  const target = new URL(url)
  const name = decodeURIComponent(target.pathname.replace(/^\//, ""))
  if (!name) throw new Error("DATABASE_URL names no database")
  const admin = new URL(url)
  admin.pathname = "/postgres"
  const sql = postgres(admin.toString(), { max: 1, onnotice: () => {}, connect_timeout: 5 })
  try {
    const rows = await sql`SELECT 1 FROM pg_database WHERE datname = ${name}`
    if (rows.length === 0) {
      await sql.unsafe(`CREATE DATABASE "${name.replace(/"/g, '""')}"`).catch((e: { code?: string }) => {
        if (e.code !== "42P04") throw e // created concurrently by another process
      })
    }
  } finally {
    await sql.end({ timeout: 5 })
  }
}

/**
 * What a migration's transaction may meet while the platform runs (a rolling upgrade migrates under load): a deadlock
 * with the running statements, or a lock or serialization failure. The transaction rolled back whole, so it is
 * tried again; anything else fails the migration.
 */
const RETRIED = new Set(["40P01", "40001", "55P03"])
const ATTEMPTS = 5

/**
 * Applies pending SQL migrations in order, once, under an advisory lock, all in one transaction (retried from the
 * start after a deadlock: the upgrade test's migration under load met one). Returns the versions applied.
 */
export const migrate = async (url: string): Promise<ReadonlyArray<string>> => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await migrateOnce(url)
    } catch (e) {
      const code = (e as { code?: string }).code
      if (code === undefined || !RETRIED.has(code) || attempt >= ATTEMPTS) throw e
      log("warn", "migration rolled back by a conflict with running statements; trying again", { code, attempt })
      await new Promise((r) => setTimeout(r, 500 * 2 ** (attempt - 1)))
    }
  }
}

const migrateOnce = async (url: string): Promise<ReadonlyArray<string>> => {
  await ensureDatabase(url)
  const sql = postgres(url, { max: 1, onnotice: () => {}, connect_timeout: 5 })
  try {
    const files = (await readdir(MIGRATIONS_DIR)).filter((f) => f.endsWith(".sql")).sort()
    const applied: Array<string> = []
    await sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`
      await tx`CREATE TABLE IF NOT EXISTS schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`
      const done = new Set((await tx`SELECT version FROM schema_migrations`).map((r) => r.version as string))
      for (const file of files) {
        const version = file.replace(/\.sql$/, "")
        if (done.has(version)) continue
        await tx.unsafe(await readFile(MIGRATIONS_DIR + file, "utf8"))
        await tx`INSERT INTO schema_migrations (version) VALUES (${version})`
        applied.push(version)
      }
    })
    return applied
  } finally {
    await sql.end({ timeout: 5 })
  }
}
