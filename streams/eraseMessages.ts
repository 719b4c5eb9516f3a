import { DeliverPolicy, type JetStreamClient, type JetStreamManager, RetentionPolicy } from "@nats-io/jetstream"
import { log } from "../core/observability/log.ts"
import { nextOn, type StreamMarks } from "./drain.ts"
import { decode } from "./msgpack.ts"
import { isMessageGone } from "./natsErrors.ts"
import { namespaceStreams } from "./retention.ts"

/** Whether a stream message names the data subject: its payload decoded (undefined when it is no msgpack) and its bytes. */
export type StreamMatcher = (decoded: unknown, raw: Uint8Array) => boolean

/** One stream's part of an erasure, in the shape of a privacy request's `results[]`. */
export interface StreamErasure {
  readonly store: `stream:${string}`
  readonly action: "deleted"
  readonly count: number
}

export interface EraseProgress {
  readonly stream: string
  readonly scanned: number
  readonly deleted: number
}

export interface EraseOptions {
  /**
   * Stops the scan between batches, rejecting with the signal's reason: the caller's time bound (`AbortSignal.timeout`,
   * or the signal Effect.tryPromise passes, aborted when the fiber is interrupted, e.g. by Effect.timeout).
   */
  readonly signal?: AbortSignal
  /** Messages read per request of a limits stream's scan (memory: one batch at a time). */
  readonly batch?: number
  /** After every batch, with counts only. */
  readonly onProgress?: (progress: EraseProgress) => void
}

const BATCH = 500
/** Subjects of a work queue read at once (each a chain of next-by-subject requests). */
const SUBJECTS_AT_ONCE = 8
/** Deletes in flight at once. */
const DELETES_AT_ONCE = 32

/**
 * Deletes, by sequence, every message at or before its stream's mark that `matcher` says names the subject, in every
 * stream of the deployment that `marks` names; the server overwrites each one's bytes (`erase`: the default secure
 * delete of STREAM.MSG.DELETE). Never a purge: other guests' messages on the same subjects stay. Messages after the
 * marks are not read, so the scan ends however fast the streams grow: take the marks after the drain (what was
 * published while it lasted may still name the subject), and again for a final pass.
 *
 * A limits stream (OUTBOX) is read in batches through an ordered consumer from its first sequence; a work queue
 * (INGRESS, WEBHOOKS) admits no second consumer on its subjects, so its remaining messages are read one by one per
 * subject (STREAM.MSG.GET next_by_subj), several subjects at once: after a drain it holds few. A message removed in the
 * meantime (acked, aged out) is not counted. Resumable: a repeat finds nothing left to delete of what went before.
 * Logs counts only.
 */
export const eraseStreamMessages = async (
  nats: { readonly js: JetStreamClient; readonly jsm: JetStreamManager },
  namespace: string,
  marks: StreamMarks,
  matcher: StreamMatcher,
  options: EraseOptions = {}
): Promise<Array<StreamErasure>> => {
  const results: Array<StreamErasure> = []
  for (const info of await namespaceStreams(nats.jsm, namespace)) {
    const mark = marks[info.config.name]
    if (mark === undefined) continue
    const started = performance.now()
    const scan = new Scan(nats.jsm, info.config.name, matcher, options)
    const { first_seq, messages } = info.state
    if (messages > 0 && first_seq <= mark) {
      if (info.config.retention === RetentionPolicy.Workqueue) await scan.workQueue(first_seq, mark)
      else await scan.limits(nats.js, first_seq, mark, options.batch ?? BATCH)
    }
    log("info", "stream messages erased", { stream: info.config.name, scanned: scan.scanned, deleted: scan.deleted, ms: Math.round(performance.now() - started) })
    results.push({ store: `stream:${info.config.name}`, action: "deleted", count: scan.deleted })
  }
  return results
}

const decoded = (raw: Uint8Array): unknown => {
  try {
    return decode(raw)
  } catch {
    return undefined
  }
}

class Scan {
  scanned = 0
  deleted = 0
  private readonly jsm: JetStreamManager
  private readonly stream: string
  private readonly matcher: StreamMatcher
  private readonly options: EraseOptions

  constructor(jsm: JetStreamManager, stream: string, matcher: StreamMatcher, options: EraseOptions) {
    this.jsm = jsm
    this.stream = stream
    this.matcher = matcher
    this.options = options
  }

  private matches(raw: Uint8Array): boolean {
    this.scanned++
    return this.matcher(decoded(raw), raw)
  }

  private async remove(seqs: ReadonlyArray<number>): Promise<void> {
    for (let i = 0; i < seqs.length; i += DELETES_AT_ONCE) {
      const done = await Promise.all(seqs.slice(i, i + DELETES_AT_ONCE).map((seq) =>
        this.jsm.streams.deleteMessage(this.stream, seq, true).catch((e) => {
          if (isMessageGone(e)) return false
          throw e
        })))
      this.deleted += done.filter(Boolean).length
    }
  }

  private progress(): void {
    this.options.signal?.throwIfAborted()
    this.options.onProgress?.({ stream: this.stream, scanned: this.scanned, deleted: this.deleted })
  }

  /** A limits stream, from `from` through `mark`, in batches of an ordered consumer (removed when done). */
  async limits(js: JetStreamClient, from: number, mark: number, batch: number): Promise<void> {
    const consumer = await js.consumers.get(this.stream, { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: from })
    try {
      for (let done = false; !done;) {
        this.progress()
        const matched: Array<number> = []
        let read = 0
        for await (const m of await consumer.fetch({ max_messages: batch, expires: 2_000 })) {
          read++
          if (m.seq > mark) {
            done = true
            break
          }
          if (this.matches(m.data)) matched.push(m.seq)
          // The last one: a pull asking for more would wait out its expiry for messages that are not coming.
          if (m.seq === mark || m.info.pending === 0) {
            done = true
            break
          }
        }
        await this.remove(matched)
        // Nothing within the wait: the stream's end (its tail up to the mark removed), unless the server was slow.
        if (read === 0 && (await consumer.info()).num_pending === 0) done = true
      }
    } finally {
      await consumer.delete().catch(() => undefined)
    }
  }

  /** A work queue's messages from `from` through `mark`, subject by subject. */
  async workQueue(from: number, mark: number): Promise<void> {
    const { state } = await this.jsm.streams.info(this.stream, { subjects_filter: ">" })
    const subjects = Object.keys(state.subjects ?? {})
    let next = 0
    const worker = async () => {
      while (next < subjects.length) {
        const subject = subjects[next++]!
        for (let seq = from; ;) {
          this.progress()
          const m = await this.jsm.streams.getMessage(this.stream, nextOn(subject, seq))
          if (m === null || m.seq > mark) break
          if (this.matches(m.data)) await this.remove([m.seq])
          seq = m.seq + 1
        }
      }
    }
    await Promise.all(Array.from({ length: Math.min(SUBJECTS_AT_ONCE, subjects.length) }, worker))
  }
}
