import { render } from "preact"
import { useEffect, useState } from "preact/hooks"
import { LocationProvider, Route, Router } from "preact-iso"
import "uplot/dist/uPlot.min.css"
import "./console.css"
import { api, setCsrfToken, whenSignedOut } from "./client.ts"
import type { Session } from "./types.ts"
import { SessionContext } from "./session.ts"
import { Header } from "./Header.tsx"
import { SignIn } from "./screens/SignIn.tsx"
import { Overview } from "./screens/Overview.tsx"
import { Contacts } from "./screens/Contacts.tsx"
import { Contact } from "./screens/Contact.tsx"
import { Deliveries } from "./screens/Deliveries.tsx"
import { Journeys, Journey } from "./screens/Journeys.tsx"
import { Run } from "./screens/Run.tsx"
import { Source, Sources } from "./screens/Sources.tsx"
import { Broadcast, Broadcasts } from "./screens/Broadcasts.tsx"

// The console: a client of the public API. Who is signed in comes from GET /api/v1/staff/me (the session cookie);
// without a session every path shows the sign-in, and the path asked for is shown once signed in. The screen asked
// for mounts at once, hidden until /staff/me answers, so its own calls go out alongside that one instead of after
// it (one round trip less on every load); the API masks and refuses by the session whatever the page knows.

const NotFound = () => <section class="screen"><h1 id="screen-title">Not found</h1><p>No such page in the console.</p></section>

const App = () => {
  const [session, setSession] = useState<Session | null | undefined>(undefined)
  const signedIn = (s: Session | null) => { setCsrfToken(s?.csrf_token ?? null); setSession(s) }
  useEffect(() => {
    whenSignedOut(() => signedIn(null))
    api.GET("/api/v1/staff/me").then(({ data }) => signedIn(data?.data ?? null), () => signedIn(null))
  }, [])
  if (session === null) return <SignIn onSignedIn={signedIn} />
  return (
    <SessionContext.Provider value={session ?? null}>
      {session === undefined && <main class="boot" aria-busy="true"><p>Loading the console…</p></main>}
      <div class="app" hidden={session === undefined}><LocationProvider scope="/console">
        <a class="skip" href="#main">Skip to content</a>
        {session !== undefined && <Header onSignedOut={() => signedIn(null)} />}
        <main id="main" tabIndex={-1}>
          <Router>
            <Route path="/console" component={Overview} />
            <Route path="/console/contacts" component={Contacts} />
            <Route path="/console/contacts/:id" component={Contact} />
            <Route path="/console/deliveries" component={Deliveries} />
            <Route path="/console/journeys" component={Journeys} />
            <Route path="/console/journeys/:id" component={Journey} />
            <Route path="/console/runs/:run_id" component={Run} />
            <Route path="/console/sources" component={Sources} />
            <Route path="/console/sources/:id" component={Source} />
            <Route path="/console/broadcasts" component={Broadcasts} />
            <Route path="/console/broadcasts/:id" component={Broadcast} />
            <Route default component={NotFound} />
          </Router>
        </main>
      </LocationProvider></div>
    </SessionContext.Provider>
  )
}

render(<App />, document.getElementById("app")!)
