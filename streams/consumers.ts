import type { JetStreamManager, JsMsg } from "@nats-io/jetstream"
import { errorText, log } from "../core/observability/log.ts"
import { isConsumerNotFound } from "./natsErrors.ts"
import type { Topic } from "./topics.ts"

/** Creates a durable consumer unless it exists (an existing one keeps its position and configuration). */
export const ensureConsumer = async (jsm: JetStreamManager, stream: string, config: Parameters<JetStreamManager["consumers"]["add"]>[1]) => {
  try {
    await jsm.consumers.info(stream, config.durable_name!)
  } catch (e) {
    if (!isConsumerNotFound(e)) throw e
    await jsm.consumers.add(stream, config)
  }
}

/**
 * A pulled batch's messages decoded through their topic. One that does not decode is logged (`dropped` says what it
 * was for and what becomes of it) and terminated: a redelivery could only fail the same way.
 */
export const decodeBatch = <A>(batch: ReadonlyArray<JsMsg>, topic: Topic<A>, dropped: string): Array<{ readonly m: JsMsg; readonly value: A }> =>
  batch.flatMap((m) => {
    try {
      return [{ m, value: topic.decode(m.data) }]
    } catch (e) {
      log("error", dropped, { seq: m.seq, error: errorText(e) })
      m.term()
      return []
    }
  })
