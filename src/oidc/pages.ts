import type { KoaContextWithOIDC } from "oidc-provider"
import { escapeHtml as escape } from "../../core/html.ts"

// The member's pages: plain HTML forms that a browser shows and a script can post (no JavaScript needed).


const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
  `<title>${escape(title)}</title></head><body><main><h1>${escape(title)}</h1>${body}</main></body></html>`

/** Back to the hotel's site without signing in (`POST {path}/abort`): the client is told `access_denied`. */
const cancel = (path: string) => `<form method="post" action="${escape(path)}/abort"><button type="submit">Cancel</button></form>`

const note = (message: string | undefined) => message === undefined ? "" : `<p role="alert">${escape(message)}</p>`

/** Step 1: the member's email (`POST {path}/login`, field `email`). */
export const emailPage = (path: string, clientName: string, message?: string) =>
  page(`Sign in to ${clientName}`, `${note(message)}<form method="post" action="${escape(path)}/login">` +
    `<label>Email <input type="email" name="email" autocomplete="email" required></label>` +
    `<button type="submit">Email me a code</button></form>${cancel(path)}`)

/** Step 2: the 6-digit code (`POST {path}/otp`, field `code`); a new email can be asked for. */
export const codePage = (path: string, email: string, message?: string) =>
  page("Enter your code", `${note(message)}<p>If ${escape(email)} belongs to a member, a 6-digit code is on its way. It is valid for 10 minutes.</p>` +
    `<form method="post" action="${escape(path)}/otp">` +
    `<label>Code <input name="code" inputmode="numeric" pattern="[0-9]{6}" autocomplete="one-time-code" required></label>` +
    `<button type="submit">Sign in</button></form>` +
    `<form method="post" action="${escape(path)}/login"><input type="hidden" name="email" value="${escape(email)}"><button type="submit">Send a new code</button></form>${cancel(path)}`)

export const messagePage = (title: string, message: string) => page(title, `<p>${escape(message)}</p>`)

/** oidc-provider's sign-out confirmation: its form (xsrf included) with a `logout=yes` button. */
export const logoutPage = async (ctx: KoaContextWithOIDC, form: string) => {
  ctx.type = "html"
  ctx.body = page("Sign out", `${form}<p>Sign out of every hotel site?</p>` +
    `<button type="submit" form="op.logoutForm" name="logout" value="yes">Yes, sign me out</button>`)
}

export const signedOutPage = async (ctx: KoaContextWithOIDC) => {
  ctx.type = "html"
  ctx.body = page("Signed out", "<p>You are signed out.</p>")
}
