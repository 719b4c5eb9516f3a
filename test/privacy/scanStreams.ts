import { jetstreamManager } from "@nats-io/jetstream"
import { connect } from "@nats-io/transport-node"
import { isMessageGone } from "../../streams/natsErrors.ts"
import { namespaceStreams } from "../../streams/retention.ts"
import { decodedText } from "./scanDatabase.ts"

export interface StreamHit {
  readonly stream: string
  readonly needle: string
  readonly messages: number
}

/**
 * Where the needles occur in the retained messages of a deployment's streams: every message still stored, read by
 * sequence, searched as text and through its msgpack decoding (case-insensitive). One hit per stream and needle.
 */
export const scanStreams = async (natsUrl: string, namespace: string, needles: ReadonlyArray<string>): Promise<Array<StreamHit>> => {
  const nc = await connect({ servers: natsUrl.split(",") })
  try {
    const jsm = await jetstreamManager(nc)
    const hits: Array<StreamHit> = []
    const lowered = needles.map((n) => n.toLowerCase())
    for (const info of await namespaceStreams(jsm, namespace)) {
      const found = new Map<string, number>()
      const { first_seq, last_seq, messages } = info.state
      for (let seq = first_seq; messages > 0 && seq <= last_seq; seq++) {
        const m = await jsm.streams.getMessage(info.config.name, { seq }).catch((e) => {
          if (isMessageGone(e)) return undefined
          throw e
        })
        if (m === undefined || m === null) continue
        const text = decodedText(m.data).toLowerCase()
        for (const [i, n] of lowered.entries()) if (text.includes(n)) found.set(needles[i]!, (found.get(needles[i]!) ?? 0) + 1)
      }
      for (const [needle, count] of found) hits.push({ stream: info.config.name, needle, messages: count })
    }
    return hits
  } finally {
    await nc.close()
  }
}
