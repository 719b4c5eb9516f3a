import type { JetStreamManager } from "@nats-io/jetstream"
import { isConsumerNotFound } from "./natsErrors.ts"

/** Creates a durable consumer unless it exists (an existing one keeps its position and configuration). */
export const ensureConsumer = async (jsm: JetStreamManager, stream: string, config: Parameters<JetStreamManager["consumers"]["add"]>[1]) => {
  try {
    await jsm.consumers.info(stream, config.durable_name!)
  } catch (e) {
    if (!isConsumerNotFound(e)) throw e
    await jsm.consumers.add(stream, config)
  }
}
