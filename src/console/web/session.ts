import { createContext } from "preact"
import { useContext } from "preact/hooks"
import type { Role, Session } from "./types.ts"

// The signed-in staff member, for the header and for what a role may try (the API's refusal is the real guard).

export const SessionContext = createContext<Session | null>(null)

export const useSession = (): Session => useContext(SessionContext)!

/** Operators and admins act (resend, stop, pause); a viewer only reads. */
export const mayAct = (role: Role) => role === "operator" || role === "admin"
