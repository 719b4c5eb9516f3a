import { type ConsumerInfo, type JetStreamManager, RetentionPolicy, type SeqMsgRequest } from "@nats-io/jetstream"
import { isStreamNotFound } from "./natsErrors.ts"
import { namespaceStreams } from "./retention.ts"

/** Each stream's last sequence at one instant (stream name → sequence): what had been published by then. */
export type StreamMarks = Record<string, number>

/** The last sequence of every stream of the deployment, now (JSON as it is: a privacy request keeps it in its progress). */
export const streamMarks = async (jsm: JetStreamManager, namespace: string): Promise<StreamMarks> =>
  Object.fromEntries((await namespaceStreams(jsm, namespace)).map((info) => [info.config.name, info.state.last_seq]))

/** What still holds a stream short of its mark: sequences and subject names only (no payload, no personal data). */
export type Behind =
  | {
    /** A work queue still holding a message at or before the mark: the oldest one, on its subject (actor partition or webhook subscription). */
    readonly stream: string
    readonly mark: number
    readonly first_seq: number
    readonly subject: string | undefined
  }
  | {
    /** A durable consumer with a message of its filter at or before the mark not yet acked (`next_seq`). */
    readonly stream: string
    readonly mark: number
    readonly consumer: string
    readonly acked_through: number
    readonly next_seq: number
  }

export interface DrainState {
  readonly drained: boolean
  readonly behind: ReadonlyArray<Behind>
}

/**
 * Whether everything published up to `marks` has been consumed: no envelope, event or command from before them can
 * still be applied (and re-create what an erasure deletes). Streams created after the marks, or gone since, hold
 * nothing from before them.
 *
 * The rule, by retention:
 * - Work queue (INGRESS, WEBHOOKS): a message is removed when its consumer acks it, so the stream is drained to the
 *   mark when it holds no message at or before it (`first_seq` past the mark, or empty). The stream is asked, not the
 *   consumers: a partition's consumer is deleted and created afresh by each new owner (resetPartitionConsumer), and a
 *   consumer missing for that moment, or new and not yet past anything, must not pass for drained. A message being
 *   applied right now is still in the stream (unacked), so it holds the drain too. A message no consumer takes (a
 *   subscription's backlog while its partner is down, retried with a delay) holds it until it is delivered, given up
 *   or aged out: `behind` names its subject.
 * - Limits (OUTBOX): messages stay after their acks, so each durable consumer is asked. It has acked through its ack
 *   floor, and through the last message it was delivered when none is waiting for an ack (a consumer created to
 *   deliver only new messages starts with its floor at 0 and its delivered sequence at the stream's end: the floor
 *   alone would call it behind forever). Past that position, the first message of its filter (STREAM.MSG.GET with
 *   next_by_subj) is one it has not acked; it is behind only when that message is at or before the mark. So a
 *   consumer whose filter matched nothing since (a channel nobody uses: floor 0) is not behind, and one deleted and
 *   created afresh reading from the start is behind until it has caught up. Ephemeral and ordered consumers (no
 *   durable name: a reader such as the erasure's own scan) are no one's work and are ignored.
 *
 * A message before a mark can cause messages after the next stream's mark: an envelope applied after the suppression
 * writes outbox rows, published after its commit (or by the relay's sweep, seconds later) onto OUTBOX, whose webhook
 * commands the fan-out turns into WEBHOOKS jobs. So a caller waits for the marks taken at the suppression, then for
 * marks taken once those are drained (with no outbox row of the tenant older than them left unpublished), and erases
 * retained messages up to marks taken after that.
 */
export const drained = async (jsm: JetStreamManager, namespace: string, marks: StreamMarks): Promise<DrainState> => {
  const behind: Array<Behind> = []
  for (const [stream, mark] of Object.entries(marks)) {
    if (mark <= 0 || !stream.startsWith(`${namespace}_`)) continue
    const info = await jsm.streams.info(stream).catch((e) => {
      if (isStreamNotFound(e)) return undefined
      throw e
    })
    if (info === undefined) continue
    if (info.config.retention === RetentionPolicy.Workqueue) {
      const { first_seq, messages } = info.state
      if (messages > 0 && first_seq <= mark) {
        const first = await jsm.streams.getMessage(stream, { seq: first_seq })
        behind.push({ stream, mark, first_seq, subject: first?.subject })
      }
      continue
    }
    for await (const consumer of jsm.consumers.list(stream)) {
      if (!consumer.config.durable_name) continue
      const b = await consumerBehind(jsm, stream, consumer, mark)
      if (b !== undefined) behind.push(b)
    }
  }
  return { drained: behind.length === 0, behind }
}

/** The stream sequence through which a consumer has acked every message of its filter. */
export const ackedThrough = (c: ConsumerInfo): number =>
  c.num_ack_pending === 0 ? Math.max(c.ack_floor.stream_seq, c.delivered.stream_seq) : c.ack_floor.stream_seq

const consumerBehind = async (jsm: JetStreamManager, stream: string, c: ConsumerInfo, mark: number): Promise<Behind | undefined> => {
  const through = ackedThrough(c)
  if (through >= mark) return undefined
  const filters = c.config.filter_subjects?.length ? c.config.filter_subjects : [c.config.filter_subject || ">"]
  let next: number | undefined
  for (const filter of filters) {
    const found = await jsm.streams.getMessage(stream, nextOn(filter, through + 1))
    if (found !== null && (next === undefined || found.seq < next)) next = found.seq
  }
  return next !== undefined && next <= mark
    ? { stream, mark, consumer: c.name, acked_through: through, next_seq: next }
    : undefined
}

/** The first message on `subject` (wildcards allowed) at or after `seq` (the server answers it; the client's type lacks the field). */
export const nextOn = (subject: string, seq: number): SeqMsgRequest => {
  const request: SeqMsgRequest & { readonly next_by_subj: string } = { seq, next_by_subj: subject }
  return request
}
