import { randomBytes } from "node:crypto"
import { hostname } from "node:os"

/**
 * This process among the platform's processes: the owner name of the partition leases it takes (its worker id) and,
 * as `gep <id>`, the application_name of every PostgreSQL session it opens, so that a worker taking over the lease of
 * a former owner that froze can end that owner's open transactions (and the row locks they hold) by name.
 */
export const processId = `${hostname().slice(0, 40)}-${process.pid}-${randomBytes(3).toString("hex")}`

/** The application_name of the sessions of the process `id` (PostgreSQL keeps 63 bytes of it). */
export const applicationNameOf = (id: string): string => `gep ${id}`.slice(0, 63)
