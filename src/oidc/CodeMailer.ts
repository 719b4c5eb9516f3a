import { Context, Effect } from "effect"
import type { OutgoingEmail } from "../../core/message/OutgoingEmail.ts"

/**
 * The way a sign-in code email leaves: the messaging family's SMTP transport, wired in by the composition root
 * (src/app/Platform.ts), since the ingress may not import an actor family's logic.
 */
export class CodeMailer extends Context.Service<CodeMailer, {
  readonly send: (mail: OutgoingEmail) => Effect.Effect<unknown, { readonly code: string }>
}>()("app/oidc/CodeMailer") {}
