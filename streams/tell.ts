import type { TenantScope } from "../core/TenantScope.ts"
import type { ActorProtocol, Messages, PayloadOf } from "./ActorProtocol.ts"
import { ENVELOPE_VERSION, type Envelope } from "./envelope.ts"
import { partitionOf } from "./partition.ts"
import { ingressSubject } from "./subjects.ts"

/** A message for an actor nobody waits on (no reply subject): its ingress subject and its envelope. */
export interface Told {
  readonly id: string
  readonly subject: string
  readonly payload: Envelope
}

/**
 * Addresses a fire-and-forget message to an actor, for an outbox (published after the sender's commit) or a direct
 * publish. `id` is the envelope id, the Nats-Msg-Id and the receiver's inbox key: deterministic where a resend must be
 * recognised (a wake for one wait, a journey step's send), so the message applies once however often it is sent.
 */
export const told = <Name extends string, M extends Messages, K extends keyof M & string>(
  target: { readonly namespace: string; readonly partitions: number },
  protocol: ActorProtocol<Name, M>,
  tag: K,
  scope: TenantScope,
  payload: PayloadOf<M[K]>,
  id: string,
  /** When it is sent (ms, the sender's Clock): the receiver's time for the command (streams/envelope.ts `sent_at`). */
  sentAt: number
): Told => {
  const key = protocol.key(payload)
  return {
    id,
    subject: ingressSubject(target.namespace, protocol.name, partitionOf(scope.tenant_id, key, target.partitions)),
    payload: {
      v: ENVELOPE_VERSION, id, actor: protocol.name, type: tag, tenant_id: scope.tenant_id, sandbox: scope.sandbox, key,
      payload: protocol.codecs[tag].encodePayload(payload), sent_at: sentAt
    }
  }
}
