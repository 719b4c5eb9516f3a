import { useState } from "preact/hooks"
import { api, dataOf } from "../client.ts"
import type { Session } from "../types.ts"
import { ErrorNote } from "../ui.tsx"

/** Email, then the 6-digit code the platform emailed (the answer never says whether the address is staff). */
export const SignIn = ({ onSignedIn }: { onSignedIn: (s: Session) => void }) => {
  const [email, setEmail] = useState("")
  const [code, setCode] = useState("")
  const [sent, setSent] = useState(false)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const submit = async (e: Event) => {
    e.preventDefault()
    setBusy(true)
    setError(null)
    try {
      if (!sent) {
        await dataOf(api.POST("/api/v1/staff/sign-in", { body: { email } }))
        setSent(true)
      } else {
        onSignedIn(await dataOf(api.POST("/api/v1/staff/sign-in/verify", { body: { email, code } })))
      }
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure))
    } finally {
      setBusy(false)
    }
  }
  return (
    <main id="main" class="signin">
      <h1>Sign in to the console</h1>
      <form onSubmit={submit} aria-describedby="signin-help">
        <p id="signin-help">{sent ? `If ${email} is a staff address, a code is on its way. It is valid for 10 minutes.` : "We email you a one-time code."}</p>
        <label for="signin-email">Email</label>
        <input id="signin-email" data-testid="signin-email" type="email" autoComplete="username" required readOnly={sent}
          value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        {sent && <>
          <label for="signin-code">Code</label>
          <input id="signin-code" data-testid="signin-code" inputMode="numeric" autoComplete="one-time-code" pattern="[0-9]{6}"
            maxLength={6} required value={code} onInput={(e) => setCode(e.currentTarget.value)} />
        </>}
        <ErrorNote message={error} />
        <button type="submit" data-testid="signin-submit" disabled={busy}>{sent ? "Sign in" : "Email me a code"}</button>
        {sent && <button type="button" class="link" onClick={() => { setSent(false); setCode("") }}>Use another address</button>}
      </form>
    </main>
  )
}
