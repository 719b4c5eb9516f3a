import { jetstream, jetstreamManager } from "@nats-io/jetstream"
import { connect } from "@nats-io/transport-node"
import { randomUUID } from "node:crypto"
import { inject } from "vitest"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { ActorProtocol, Messages, PayloadOf } from "../../streams/ActorProtocol.ts"
import { encode, ENVELOPE_VERSION, type Envelope, type Reply } from "../../streams/envelope.ts"
import { partitionOf } from "../../streams/partition.ts"
import { ingressStream, ingressSubject } from "../../streams/subjects.ts"
import { Replies } from "../../streams/topics.ts"

/** The ingress stream's last sequence: unchanged across a request means nothing was published. */
export const ingressLastSeq = async (namespace: string): Promise<number> => {
  const nc = await connect({ servers: inject("natsUrl").split(",") })
  try {
    const jsm = await jetstreamManager(nc)
    return (await jsm.streams.info(ingressStream(namespace))).state.last_seq
  } finally {
    await nc.close()
  }
}

/**
 * An actor message published as an ingress would, on its key's partition (`sentAt`: when it was sent; another time for
 * a backlog's delay), and the actor's reply, its value as encoded on the wire: for messages no endpoint sends as is
 * (an old release's, one another actor tells).
 */
export const askRaw = async <Name extends string, M extends Messages, K extends keyof M & string>(
  config: { readonly natsUrl: string; readonly namespace: string; readonly partitions: number },
  scope: TenantScope, protocol: ActorProtocol<Name, M>, type: K, payload: PayloadOf<M[K]>, sentAt = Date.now()
): Promise<Reply> => {
  const nc = await connect({ servers: config.natsUrl.split(",") })
  try {
    const key = protocol.key(payload)
    const envelope: Envelope = {
      v: ENVELOPE_VERSION, id: randomUUID(), actor: protocol.name, type, tenant_id: scope.tenant_id, sandbox: scope.sandbox, key, sent_at: sentAt,
      reply_to: `_test.reply.${randomUUID()}`, payload: protocol.codecs[type].encodePayload(payload)
    }
    const reply = new Promise<Reply>((resolve) => nc.subscribe(envelope.reply_to!, { max: 1, callback: (_err, msg) => resolve(Replies.decode(msg.data)) }))
    await jetstream(nc).publish(ingressSubject(config.namespace, protocol.name, partitionOf(scope.tenant_id, key, config.partitions)), encode(envelope), { msgID: envelope.id })
    return await reply
  } finally {
    await nc.close()
  }
}
