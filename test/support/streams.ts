import { jetstreamManager } from "@nats-io/jetstream"
import { connect } from "@nats-io/transport-node"
import { inject } from "vitest"
import { ingressStream } from "../../streams/subjects.ts"

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
