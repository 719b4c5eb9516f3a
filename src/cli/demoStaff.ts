import { Effect } from "effect"
import { Conflict } from "../../schemas/errors.ts"
import { StaffAccounts } from "../staff/StaffAccounts.ts"
import type { DemoTenant } from "./demo.ts"

/** The demo tenant's administrator: an address of the demo's reserved domain, its codes caught by the local mail catcher. */
export const DEMO_ADMIN = "admin@demo-hotels.example"

/**
 * `gep start`: the demo tenant gets an admin staff member (once; a later start finds it), and the start line says where
 * the console is and how to sign in to it: the address, and where its emailed code arrives.
 */
export const ensureDemoStaff = (demo: DemoTenant, port: number, mailUi: string | undefined) =>
  Effect.gen(function*() {
    const accounts = yield* StaffAccounts
    yield* accounts.add(demo.tenant_id, DEMO_ADMIN, "admin").pipe(Effect.catchIf((e) => e instanceof Conflict, () => Effect.void))
    const console = `http://127.0.0.1:${port}/console`
    return {
      console,
      staff_sign_in: {
        url: console,
        email: DEMO_ADMIN,
        role: "admin",
        code_arrives_at: mailUi ?? "the demo tenant's email channel (GEP_SMTP_URL is set: its code goes through that server)"
      }
    }
  }).pipe(Effect.provide(StaffAccounts.layer))
