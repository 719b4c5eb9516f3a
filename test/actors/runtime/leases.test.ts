import { afterAll, describe, expect, it } from "@effect/vitest"
import postgres from "postgres"
import { inject } from "vitest"
import { acquire, expiredHolder, fenceOut } from "../../../actors/runtime/leases.ts"
import { connect } from "../../../core/db/Database.ts"
import { applicationNameOf } from "../../../core/processIdentity.ts"

/**
 * A former owner frozen in the middle of a statement (here: asleep inside a transaction that holds its lease row)
 * is never ended by idle_in_transaction_session_timeout: the new owner finds it by its sessions' application_name
 * and ends it, then takes the lease at once instead of waiting for the pause to end.
 */

const sql = connect(inject("databaseUrl"), 2)
afterAll(async () => {
  await sql.end()
})

describe("taking over from a frozen owner", () => {
  it("ends its open transactions, mid-statement ones included, and takes the lease", async () => {
    const namespace = `fence-out-${Date.now()}`
    const formerOwner = `frozen-${Math.random().toString(36).slice(2, 8)}`
    await sql`INSERT INTO partition_leases (namespace, actor, partition, owner, epoch, expires_at)
      VALUES (${namespace}, 'reservation', 0, ${formerOwner}, 7, now() - interval '1 second')`
    // The former owner's session: holds the lease row (as its fence check does) and is caught mid-statement.
    const frozen = postgres(inject("databaseUrl"), { max: 1, onnotice: () => {}, connection: { application_name: applicationNameOf(formerOwner) } })
    const stuck = frozen.begin(async (tx) => {
      await tx`SELECT 1 FROM partition_leases WHERE namespace = ${namespace} FOR SHARE`
      await tx`SELECT pg_sleep(60)`
    }).then(() => "committed", (e: { code?: string }) => `ended (${e.code})`)
    await new Promise((r) => setTimeout(r, 300))

    // Without the fence-out, the lease row stays locked: the lease cannot be taken.
    expect(await acquire(sql, namespace, "reservation", 0, "new-owner", 5_000)).toBeUndefined()

    expect(await expiredHolder(sql, namespace, "reservation", 0, "new-owner")).toBe(formerOwner)
    expect(await fenceOut(sql, formerOwner)).toBe(1)
    expect(await stuck).toMatch(/^ended/)
    const fence = await acquire(sql, namespace, "reservation", 0, "new-owner", 5_000)
    expect(fence).toMatchObject({ owner: "new-owner", epoch: 8 })
    expect(await expiredHolder(sql, namespace, "reservation", 0, "new-owner")).toBeUndefined()
    await frozen.end({ timeout: 1 })
  })

  it("leaves alone an owner whose lease has not expired, and its own sessions", async () => {
    const namespace = `fence-keep-${Date.now()}`
    await sql`INSERT INTO partition_leases (namespace, actor, partition, owner, epoch, expires_at)
      VALUES (${namespace}, 'reservation', 0, 'alive-owner', 1, now() + interval '1 minute')`
    expect(await expiredHolder(sql, namespace, "reservation", 0, "new-owner")).toBeUndefined()
    expect(await fenceOut(sql, "nobody-with-sessions")).toBe(0)
  })
})
