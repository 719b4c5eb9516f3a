import type { JetStreamManager, StreamInfo } from "@nats-io/jetstream"

/**
 * How long any stream of a deployment keeps a message, acked or not: every stream carries guests' data (envelopes,
 * events, webhook bodies), so this is the bound on personal data held in JetStream that the README and the DPA state.
 * A work-queue message still unacked after it is dropped too (its backlog has failed for a week by then).
 * test/streams/retention.test.ts checks every stream a platform creates has an age limit within it.
 */
export const STREAM_MAX_AGE_MS = 7 * 24 * 3600 * 1000

/**
 * The streams of one deployment: named `<namespace>_…` and listening only on `<namespace>.…` subjects. The subject
 * prefix tells namespaces apart where the names cannot (`t1_x` may be stream `x` of `t1` or a stream of `t1_x`), since a
 * namespace is one subject token.
 */
export const namespaceStreams = async (jsm: JetStreamManager, namespace: string): Promise<Array<StreamInfo>> => {
  const out: Array<StreamInfo> = []
  for await (const info of jsm.streams.list()) {
    const subjects = info.config.subjects ?? []
    if (info.config.name.startsWith(`${namespace}_`) && subjects.length > 0 && subjects.every((s) => s.startsWith(`${namespace}.`))) {
      out.push(info)
    }
  }
  return out.sort((a, b) => a.config.name.localeCompare(b.config.name))
}
