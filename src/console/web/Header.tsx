import { useLocation } from "preact-iso"
import { api } from "./client.ts"
import { useSession } from "./session.ts"

const SECTIONS: ReadonlyArray<readonly [string, string]> = [
  ["/console", "Overview"], ["/console/contacts", "Contacts"], ["/console/deliveries", "Deliveries"],
  ["/console/journeys", "Journeys"], ["/console/sources", "Website sources"], ["/console/broadcasts", "Broadcasts"]
]

const current = (path: string, href: string) => href === "/console" ? path === "/console" || path === "/console/" : path.startsWith(href)

export const Header = ({ onSignedOut }: { onSignedOut: () => void }) => {
  const session = useSession()!
  const { path } = useLocation()
  const signOut = () => { api.POST("/api/v1/staff/sign-out").finally(onSignedOut) }
  return (
    <header class="top">
      <nav aria-label="Sections">
        <ul>
          {SECTIONS.map(([href, label]) =>
            <li key={href}><a href={href} aria-current={current(path, href) ? "page" : undefined}>{label}</a></li>)}
        </ul>
      </nav>
      <div class="who">
        <span title={session.tenant_id}><span class="visually-hidden">Tenant </span>{session.tenant_id.slice(0, 8)}</span>
        <span class="badge"><span class="visually-hidden">Role </span>{session.role}</span>
        <span class="email" title={session.staff.email}>{session.staff.email}</span>
        <button type="button" onClick={signOut}>Sign out</button>
      </div>
    </header>
  )
}
