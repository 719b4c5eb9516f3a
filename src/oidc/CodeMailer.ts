import { Context, Effect } from "effect"

/** One sign-in code email, as the SMTP transport takes it. */
export interface CodeMail {
  readonly messageId: string
  readonly from: { readonly address: string; readonly name: string | null }
  readonly replyTo: string | null
  readonly to: string
  readonly subject: string
  readonly text: string | null
  readonly html: string | null
  readonly headers: Readonly<Record<string, string>>
}

/**
 * The way a sign-in code email leaves: the messaging family's SMTP transport, wired in by the composition root
 * (src/app/Platform.ts), since the ingress may not import an actor family's logic.
 */
export class CodeMailer extends Context.Service<CodeMailer, {
  readonly send: (mail: CodeMail) => Effect.Effect<unknown, { readonly code: string }>
}>()("app/oidc/CodeMailer") {}
