import { createContext } from "preact"
import { useContext } from "preact/hooks"
import type { Role, Session } from "./types.ts"

// The signed-in staff member, for the header and for what a role may try (the API's refusal is the real guard).

export const SessionContext = createContext<Session | null>(null)

/** The session, or null while GET /api/v1/staff/me has not answered yet (the screen is mounted, hidden, meanwhile). */
export const useSession = (): Session | null => useContext(SessionContext)

/** Operators and admins act (resend, stop, pause); a viewer only reads; nobody until the role is known. */
export const mayAct = (role: Role | undefined) => role === "operator" || role === "admin"
