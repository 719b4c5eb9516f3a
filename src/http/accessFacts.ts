import { Context, Effect } from "effect"

/**
 * What a request's credential told us, for its access-log line: filled in by whichever middleware accepted the
 * credential (an API key, a telephony token), read by the edge when the answer leaves. A slot the edge provides per
 * request (undefined outside a request), as the Idempotency-Key slot is.
 */
export interface AccessFactsShape {
  tenant_id: string | null
  key_prefix: string | null
}

export const AccessFacts = Context.Reference<AccessFactsShape | undefined>("app/http/AccessFacts", { defaultValue: () => undefined })

export const noteCredential = (tenantId: string, keyPrefix: string | null) =>
  Effect.gen(function*() {
    const facts = yield* AccessFacts
    if (facts !== undefined) {
      facts.tenant_id = tenantId
      facts.key_prefix = keyPrefix
    }
  })
