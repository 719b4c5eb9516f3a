/**
 * One email as the SMTP transport takes it: a message's send (the message actor) or a sign-in code (the SSO ingress,
 * which may not import an actor family, so the shape lives here in core).
 */
export interface OutgoingEmail {
  /** Our message id: the Message-ID header is derived from it, the same on every attempt. */
  readonly messageId: string
  readonly from: { readonly address: string; readonly name: string | null }
  readonly replyTo: string | null
  readonly to: string
  readonly subject: string
  readonly text: string | null
  readonly html: string | null
  readonly headers: Readonly<Record<string, string>>
}
