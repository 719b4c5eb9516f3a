import postgres from "postgres"
import { inject } from "vitest"
import { migrate } from "../../core/db/migrate.ts"

/**
 * A migrated database of the run's own, for a test file whose rows must not meet another file's: one that puts time
 * on the test clock writes rows dated 1970, and any platform another file starts sweeps by the real clock at once.
 * Dropped by `drop` (and with the run's database server state otherwise untouched).
 */
export const ownDatabase = async (suffix: string) => {
  const url = new URL(inject("databaseUrl"))
  const name = `${url.pathname.slice(1)}_${suffix}`
  url.pathname = `/${name}`
  await migrate(url.toString())
  const drop = async () => {
    const admin = new URL(url)
    admin.pathname = "/postgres"
    const sql = postgres(admin.toString(), { max: 1, onnotice: () => {} })
    await sql.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
    await sql.end()
  }
  return { url: url.toString(), drop }
}
