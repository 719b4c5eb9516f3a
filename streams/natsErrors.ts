import { JetStreamApiCodes, JetStreamApiError } from "@nats-io/jetstream"
import {
  ClosedConnectionError, ConnectionError, DrainingConnectionError, NoRespondersError, RequestError, TimeoutError
} from "@nats-io/transport-node"
import { Data } from "effect"

/**
 * nats.js failures recognised by their class and their JetStream API error codes (`err_code` and `code` of the
 * server's answer), never by message text: the text is a description that may change between versions.
 */
const apiError = (e: unknown): JetStreamApiError | undefined => {
  for (let u = e, depth = 0; u instanceof Error && depth < 4; u = u.cause, depth++) {
    if (u instanceof JetStreamApiError) return u
  }
  return undefined
}

/** The stream named in the request does not exist (10059). */
export const isStreamNotFound = (e: unknown): boolean => e instanceof JetStreamApiError && e.code === JetStreamApiCodes.StreamNotFound

/** The consumer named in the request does not exist (10014). */
export const isConsumerNotFound = (e: unknown): boolean => e instanceof JetStreamApiError && e.code === JetStreamApiCodes.ConsumerNotFound

/**
 * The message asked for by sequence is not in the stream (any more): no message found (10037), or the sequence not
 * found (10043), which a delete of a message already removed (acked off a work queue, aged out, deleted) answers.
 */
export const isMessageGone = (e: unknown): boolean =>
  e instanceof JetStreamApiError && (e.code === JetStreamApiCodes.NoMessageFound || e.code === 10043)

/**
 * NATS (or its JetStream) is away or not answering: no connection, a timeout, no responders (JetStream not there yet),
 * or the server answering 503 (e.g. a cluster without a JetStream leader). Retrying later is the remedy.
 */
export const isNatsUnavailable = (e: unknown): boolean => {
  for (let u = e, depth = 0; u instanceof Error && depth < 4; u = u.cause, depth++) {
    if (u instanceof ConnectionError || u instanceof ClosedConnectionError || u instanceof DrainingConnectionError ||
      u instanceof TimeoutError || u instanceof NoRespondersError || (u instanceof RequestError && u.isNoResponders())) return true
    if (u instanceof JetStreamApiError && u.status === 503) return true
  }
  return false
}

/** NATS or JetStream is away: retried until it is back; never the request's fault. */
export class NatsUnavailable extends Data.TaggedError("NatsUnavailable")<{ readonly cause: unknown }> {
  override get message(): string {
    return `NATS unavailable: ${describe(this.cause)}`
  }
}

/** JetStream refused the request. `code`: its API error code (`err_code`), when the server gave one. */
export class NatsError extends Data.TaggedError("NatsError")<{ readonly code: number | undefined; readonly cause: unknown }> {
  override get message(): string {
    return describe(this.cause)
  }
}

const describe = (cause: unknown): string => (cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause))

export type NatsFailure = NatsUnavailable | NatsError

/** Classifies what nats.js rejected with. An already classified failure is returned as it is. */
export const natsFailure = (e: unknown): NatsFailure =>
  e instanceof NatsUnavailable || e instanceof NatsError
    ? e
    : isNatsUnavailable(e)
    ? new NatsUnavailable({ cause: e })
    : new NatsError({ code: apiError(e)?.code, cause: e })
