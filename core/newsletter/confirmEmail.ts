// The double opt-in email: one link to the confirmation page (which asks for a click before anything changes).

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

export interface ConfirmEmail {
  readonly subject: string
  readonly text: string
  readonly html: string
}

export const confirmEmail = (link: string, firstName: string | undefined): ConfirmEmail => {
  const hello = firstName === undefined ? "Hello," : `Hello ${firstName},`
  return {
    subject: "Please confirm your newsletter subscription",
    text: `${hello}\n\nPlease confirm that you want to receive our newsletter:\n${link}\n\n` +
      "If you did not ask for it, ignore this email: nothing happens without your confirmation.\n",
    html: `<p>${escape(hello)}</p><p>Please confirm that you want to receive our newsletter:</p>` +
      `<p><a href="${escape(link)}">Confirm my subscription</a></p>` +
      "<p>If you did not ask for it, ignore this email: nothing happens without your confirmation.</p>"
  }
}
